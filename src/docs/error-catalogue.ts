import { UNAUTHORIZED_MESSAGE } from '../access/request-guard.js';

/** Every status the API answers with, why, and what to do: the content of /docs/errors. */
export interface ErrorEntry {
  status: number;
  title: string;
  when: string[];
  remedy: string;
  /**
   * The exception words an `error` of this status begins with (`ConnectionLimitException: …`), each said once: what
   * a caller's code may branch on. A status whose errors carry none (401, 403…) has none.
   */
  codes: string[];
  examples: string[];
}

export const ERROR_CATALOGUE: ErrorEntry[] = [
  {
    status: 400,
    title: 'Bad Request',
    when: [
      'A path, query or body value fails validation: `validation.errors` has one item per problem, with `itemId` naming the parameter or field.',
      '`page` below 1, `pageSize` below 1 or above 5000, or either not an integer written in decimal digits within int32 (`0x10`, `1e3`, `+1`, `01` are refused).',
      'A `companyId` (or other id) that is not a GUID.',
      'A `query` that cannot be parsed (`Error parsing query - Malformed query.`) or names an unknown property (`Error parsing query - Could not resolve property X on <Type>`); a query of 2048 characters or more.',
      'A body that is not valid JSON, nests arrays and objects deeper than 64 levels, or is sent with a content type other than `application/json`.',
      '`query` groups nested deeper than 32 levels.',
      'A sync queued for a data type that is already syncing (`DatasetAlreadyInProgressException`), for a company with no linked connection (`NoLinkedConnectionException`), or on a connection that is not Linked (`ConnectionNotLinkedException`, also for a write).',
      'An `Idempotency-Key` used again for a different write (`IdempotencyKeyReusedException`).',
      'A connection to a platform this server no longer offers (`IntegrationUnavailableException`): delete the connection.',
      'Bytes that are not well-formed HTTP/1.1, an HTTP/1.1 request without `Host`, or a malformed percent-encoding in the path.',
    ],
    remedy: 'Correct the request as the validation items say; retrying unchanged fails the same way.',
    codes: [
      'ValidationException',
      'BadRequestException',
      'MalformedRequestException',
      'UnsupportedContentTypeException',
      'DatasetAlreadyInProgressException',
      'NoLinkedConnectionException',
      'ConnectionNotLinkedException',
      'IdempotencyKeyReusedException',
      'IntegrationUnavailableException',
    ],
    examples: ['ValidationException: One or more validation errors occurred.', 'Error parsing query - Malformed query.'],
  },
  {
    status: 401,
    title: 'Unauthorized',
    when: [
      'The `Authorization` header is missing, is not `Basic <base64(apiKey)>`, or carries a key that does not exist (or was deleted).',
    ],
    remedy: 'Send `Authorization: Basic ` followed by the Base64 encoding of a current API key.',
    codes: [],
    examples: [UNAUTHORIZED_MESSAGE, 'Unauthorized (GET /metrics without its bearer token)'],
  },
  {
    status: 402,
    title: 'Payment Required',
    when: [
      'Free trial: creating a 51st company (`CompanyValidationException: Company limit exceeded`). Delete companies you no longer need and retry.',
      'Free trial: an hourly sync schedule (`SyncSettingsValidationException: Sync schedule not allowed`).',
      'Free trial: the account is older than 365 days; every endpoint answers `Payment Required` with `Account expired.`',
    ],
    remedy: 'Stay within the plan, or ask the operator to move the client to the standard plan.',
    codes: ['CompanyValidationException', 'SyncSettingsValidationException'],
    examples: ['CompanyValidationException: Company limit exceeded', 'Payment Required'],
  },
  {
    status: 403,
    title: 'Forbidden',
    when: [
      'The API key is outdated (past its expiry).',
      'The resource (e.g. a company) belongs to another client.',
      'The endpoint is reserved to operators.',
    ],
    remedy: 'Use a current key of the client that owns the resource.',
    codes: [],
    examples: ['Forbidden: API key <id> is outdated (it expired at <date>); use a current key.'],
  },
  {
    status: 404,
    title: 'Not Found',
    when: [
      'No resource with that id (e.g. `No company was found with ID <id>`).',
      'No endpoint at that path.',
      'The data type is not supported by the platform (`Datatype <name> not supported by platform(s) <name>`).',
    ],
    remedy: 'Check the id and the path.',
    codes: [
      'NotFoundException',
      'ApiKeyNotFoundException',
      'DatasetNotFoundException',
      'IntegrationNotFoundException',
      'PushOperationNotFoundException',
      'RecordNotFoundException',
      'WebhookConsumerNotFoundException',
      'WebhookDeliveryNotFoundException',
    ],
    examples: ['No company was found with ID 6b3f8a02-6d1c-4c4b-9a3e-2f1d8f2c7a10'],
  },
  {
    status: 405,
    title: 'Method Not Allowed',
    when: ['The path exists but not with this method; the `Allow` header lists the methods it takes.'],
    remedy: 'Use one of the methods in `Allow`.',
    codes: ['MethodNotAllowedException'],
    examples: ['MethodNotAllowedException: POST is not allowed on /companies/<id>; allowed: GET, HEAD, PUT, PATCH, DELETE.'],
  },
  {
    status: 408,
    title: 'Request Timeout',
    when: ['The request line and headers did not arrive within 10 s, or the whole request within 30 s. The connection is then closed.'],
    remedy: 'Send the whole request promptly; on a slow link, send smaller bodies.',
    codes: ['RequestTimeoutException'],
    examples: ['RequestTimeoutException: The request did not arrive within 30 s.'],
  },
  {
    status: 409,
    title: 'Conflict',
    when: [
      'Creating an 11th API key (`ApiKeyLimitException`), or a 51st webhook consumer (`WebhookConsumerLimitException`).',
      'Adding a second accounting connection to a company (`ConnectionLimitException`): a company has one accounting connection, whatever its status.',
      'Replaying a delivery of a disabled webhook consumer (`WebhookConsumerDisabledException`).',
      'Reading a data set that was never requested, or whose first sync has not completed.',
      'A Lending report whose inputs have not synced (`DataNotSyncedException`, naming the data types still to sync).',
    ],
    remedy:
      'Delete a key or consumer first; delete the company’s accounting connection before adding another; enable the consumer; or request the data set (for a report, the data types it names) and wait for its sync to complete.',
    codes: [
      'ApiKeyLimitException',
      'ConnectionLimitException',
      'WebhookConsumerLimitException',
      'WebhookConsumerDisabledException',
      'DataNotSyncedException',
    ],
    examples: ['ApiKeyLimitException: A client can hold at most 10 API keys; delete one before creating another.'],
  },
  {
    status: 413,
    title: 'Payload Too Large',
    when: [
      'The request body is larger than the server accepts (5 MiB unless the operator sets `BODY_LIMIT`).',
      'A page uploaded to a bank statement upload session would take the session past 32 Mi characters of records.',
    ],
    remedy: 'Send a smaller body; for an upload session, process it and start another for the rest.',
    codes: ['PayloadTooLargeException'],
    examples: [
      'PayloadTooLargeException: The request body is larger than this server accepts.',
      'PayloadTooLargeException: An upload session holds at most 32 Mi characters of records; process this one and start another for the rest.',
    ],
  },
  {
    status: 414,
    title: 'URI Too Long',
    when: ['A path segment is longer than 100 characters (no id is).'],
    remedy: 'Check the path: ids are GUIDs or short keys.',
    codes: ['UriTooLongException'],
    examples: ['UriTooLongException: A path segment of the request is longer than this server accepts (100 characters).'],
  },
  {
    status: 417,
    title: 'Expectation Failed',
    when: ['An `Expect` header other than `100-continue`.'],
    remedy: 'Leave `Expect` out, or send `Expect: 100-continue`.',
    codes: ['ExpectationFailedException'],
    examples: ['ExpectationFailedException: Only "Expect: 100-continue" is supported.'],
  },
  {
    status: 429,
    title: 'Too Many Requests',
    when: [
      'The daily quota (Free trial: 1000 × (1 + companies with a linked connection), reset at 00:00 UTC) or the per-second burst limit is used up. `X-Rate-Limit-*` headers show the quota on every response.',
    ],
    remedy: 'Wait for the number of seconds in `Retry-After`.',
    codes: [],
    examples: ['You have made too many requests in a given amount of time; please retry later.'],
  },
  {
    status: 431,
    title: 'Request Header Fields Too Large',
    when: ['The request line and headers are larger than 16 KB in all (a very long query string counts).'],
    remedy: 'Send fewer or shorter headers, or a shorter query string.',
    codes: ['RequestHeaderFieldsTooLargeException'],
    examples: ['RequestHeaderFieldsTooLargeException: The request headers are larger than this server accepts (16 KB in all).'],
  },
  {
    status: 500,
    title: 'Internal Server Error',
    when: ['Something failed on the server. Nothing internal is disclosed; the failure is logged under the `correlationId`.'],
    remedy: 'Retry later; if it persists, quote the `correlationId` to the operator.',
    codes: [],
    examples: ['InternalServerError: An unexpected error occurred; please retry later and quote the correlationId if it persists.'],
  },
  {
    status: 503,
    title: 'Service Unavailable',
    when: ['The operator put the service in maintenance mode.'],
    remedy: 'Retry after the number of seconds in `Retry-After`.',
    codes: [],
    examples: ['Service Unavailable: Ledgerport is temporarily offline for maintenance; please retry later.'],
  },
];
