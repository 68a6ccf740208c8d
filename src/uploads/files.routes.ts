import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import multipart from '@fastify/multipart';
import { CompanyIdParams, ConnectionIdParams, errorResponses, sendJson } from '../http/responses.js';
import { callerOf } from '../clients/caller.js';
import { ApiError, validationError } from '../http/api-error.js';
import { nulRefusal } from '../http/nul-guard.js';
import { StatementReport, type IncomingFile } from '../connectors/connector.js';
import { MAX_FILE_BYTES, MAX_FILES, type FilesService } from './files.service.js';

const tags = ['File upload'];
/** Parts other than files (a CSV `mapping`): a few, and small. */
const MAX_FIELD_BYTES = 64 * 1024;

const File = Type.Object(
  {
    fileName: Type.Union([Type.String(), Type.Null()], { description: "The file's name." }),
    displayName: Type.Union([Type.String(), Type.Null()], { description: 'An optional display name for the file.' }),
    sourceType: Type.Union([Type.String(), Type.Null()], { description: 'The source of the file uploaded.' }),
    uploaded: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, title: 'File' },
);

const UploadAnswer = Type.Object(
  {
    files: Type.Array(
      Type.Object({
        fileName: Type.String({ description: "The file's name." }),
        size: Type.Integer({ minimum: 0, description: 'Its size in bytes.' }),
        format: Type.Optional(
          Type.String({ description: 'On a platform that reads its files: the format read (`OFX`, `CAMT.053`, `MT940`, `CSV`).' }),
        ),
        statements: Type.Optional(Type.Array(StatementReport, { description: 'On a platform that reads its files: what it read.' })),
      }),
      { description: 'The files, in the order they were sent.' },
    ),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'On a platform that reads its files: problems that did not refuse a file.' }),
    ),
  },
  { description: 'Per file: its name, size and, for statements, format and statements; and the warnings.' },
);

/** The multipart body, for the document only (`multipartBody`: src/docs/openapi.ts). */
const FileUpload = Type.Object({
  file: Type.Array(Type.String({ format: 'binary' }), {
    description: `The files, one part each, up to ${MAX_FILES} of up to ${MAX_FILE_BYTES / 1024 / 1024} MB (a part named \`fileName\` is taken too, as @codat/lending names it).`,
  }),
  mapping: Type.Optional(
    Type.String({
      description: 'For CSV statements: the column mapping as JSON, or `{"preset": "<name>"}` (docs/connectors/bank-statements.md).',
    }),
  ),
  preset: Type.Optional(Type.String({ description: 'For CSV statements: a preset layout by name, when there is no `mapping`.' })),
});

/** The multipart reader's limits: one more file than allowed is read as far as its header, so the 21st is a 400 naming the limit. */
export const UPLOAD_LIMITS = {
  files: MAX_FILES + 1,
  fileSize: MAX_FILE_BYTES,
  fields: 10,
  fieldSize: MAX_FIELD_BYTES,
  parts: MAX_FILES + 11,
  headerPairs: 100,
};

/**
 * The upload route reads its own multipart body (in a scope of its own: no other route takes multipart), with
 * its own limits: `MAX_FILES` files of `MAX_FILE_BYTES` each, whatever the server's `BODY_LIMIT`.
 */
export async function registerFileRoutes(app: FastifyInstance, deps: { files: FilesService }): Promise<void> {
  const { files } = deps;
  const r = app.withTypeProvider<TypeBoxTypeProvider>();

  r.get(
    '/companies/:companyId/files',
    {
      schema: {
        operationId: 'list-files',
        summary: 'List all files uploaded by a company',
        tags,
        params: CompanyIdParams,
        response: { 200: Type.Array(File), ...errorResponses(404) },
      },
    },
    async (request, reply) => sendJson(reply, JSON.stringify(await files.list(callerOf(request), request.params.companyId))),
  );

  r.get(
    '/companies/:companyId/files/download',
    {
      schema: {
        operationId: 'download-files',
        summary: 'Download all files for a company',
        description:
          'One file is sent as itself; several as one zip (`Content-Disposition` names it). `date` keeps the files uploaded on that day (UTC).',
        tags,
        params: CompanyIdParams,
        querystring: Type.Object({ date: Type.Optional(Type.String({ description: 'Only download files uploaded on this date.' })) }),
        response: {
          // Only the 200 is octet-stream: the errors are JSON, as everywhere.
          200: {
            description: 'The file, or a zip of the files.',
            content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } },
          },
          ...errorResponses(404),
        },
      },
    },
    async (request, reply) => {
      const file = await files.download(callerOf(request), request.params.companyId, request.query.date);
      // Codat's contract says octet-stream for both; the name (and its extension) says which it is.
      return reply
        .code(200)
        .type('application/octet-stream')
        .header('Content-Disposition', contentDisposition(file.name))
        .header('Content-Length', String(file.bytes.byteLength))
        .send(Buffer.from(file.bytes.buffer, file.bytes.byteOffset, file.bytes.byteLength) as never);
    },
  );

  await app.register(async (scope) => {
    await scope.register(multipart, { limits: UPLOAD_LIMITS, throwFileSizeLimit: true });
    scope.withTypeProvider<TypeBoxTypeProvider>().post(
      '/companies/:companyId/connections/:connectionId/files',
      {
        schema: {
          operationId: 'upload-files',
          summary: 'Upload files for a company',
          description:
            'multipart/form-data with one or more parts named `file` (up to 20 files of up to 10 MB each) and, for CSV statements, a part named `mapping`. ' +
            'On a Bank statement files (`fstm`) connection every file must be a bank statement (OFX/QFX, CAMT.053, MT940, CSV): all are imported or none, and the answer lists what was read. ' +
            'On other connections files are kept as uploaded (PDF, spreadsheets, documents, images).',
          tags,
          params: ConnectionIdParams,
          consumes: ['multipart/form-data'],
          multipartBody: FileUpload,
          response: { 200: UploadAnswer, ...errorResponses(404, 413) },
        },
      },
      async (request, reply) => {
        const client = callerOf(request);
        // Another client's company is refused before its body is read.
        await files.target(client, request.params.companyId, request.params.connectionId);
        const { files: incoming, fields } = await readParts(request);
        return sendJson(
          reply,
          JSON.stringify(await files.upload(client, request.params.companyId, request.params.connectionId, incoming, fields)),
        );
      },
    );
  });
}

/** Reads every part into memory (an upload is accepted whole or not at all), with the limits as errors. */
export async function readParts(request: FastifyRequest): Promise<{ files: IncomingFile[]; fields: Record<string, string> }> {
  if (!request.isMultipart()) {
    throw validationError('UnsupportedContentTypeException: Files must be sent as multipart/form-data.', [
      { itemId: 'Content-Type', message: 'Content-Type must be multipart/form-data, with parts named file', validatorName: 'ContentType' },
    ]);
  }
  const files: IncomingFile[] = [];
  const fields: Record<string, string> = {};
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        // `file` is Codat's part name; @codat/lending 4.3.0 (the SDK on npm) sends its file in a part named `fileName`.
        if (part.fieldname !== 'file' && part.fieldname !== 'fileName') {
          part.file.resume();
          throw validationError('ValidationException: Files are sent in parts named file.', [
            {
              itemId: part.fieldname,
              message: `a file was sent in a part named ${part.fieldname}; name it file`,
              validatorName: 'FileUpload',
            },
          ]);
        }
        if (files.length === MAX_FILES) {
          part.file.resume();
          throw validationError(`ValidationException: At most ${MAX_FILES} files can be uploaded at a time.`, [
            { itemId: 'file', message: `more than ${MAX_FILES} files: upload at most ${MAX_FILES} at a time`, validatorName: 'FileUpload' },
          ]);
        }
        const name = withoutNul(part.filename || `file-${files.length + 1}`, 'file');
        let bytes: Buffer;
        try {
          bytes = await part.toBuffer();
        } catch (err) {
          throw asUploadError(err, name);
        }
        files.push({ name, contentType: part.mimetype, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) });
      } else {
        if (part.valueTruncated) {
          throw validationError('ValidationException: A form field is too large.', [
            {
              itemId: part.fieldname,
              message: `${part.fieldname} is larger than ${MAX_FIELD_BYTES / 1024} KB`,
              validatorName: 'FileUpload',
            },
          ]);
        }
        fields[withoutNul(part.fieldname, 'body')] = withoutNul(
          typeof part.value === 'string' ? part.value : String(part.value),
          part.fieldname,
        );
      }
    }
  } catch (err) {
    throw asUploadError(err);
  }
  return { files, fields };
}

/**
 * File names and form fields reach the store: NUL is refused here as the NUL guard refuses it in JSON bodies (it
 * runs before this body is read).
 */
function withoutNul(text: string, itemId: string): string {
  if (!text.includes('\u0000')) return text;
  throw nulRefusal(itemId);
}

/** The multipart reader's own errors, as the documented error body (`file` names the file being read, if any). */
function asUploadError(err: unknown, file?: string): unknown {
  if (err instanceof ApiError) return err;
  const code = (err as { code?: string }).code ?? '';
  if (code === 'FST_REQ_FILE_TOO_LARGE')
    return new ApiError(
      413,
      `PayloadTooLargeException: ${file ?? 'A file'} is larger than ${MAX_FILE_BYTES / 1024 / 1024} MB, the most a file can be.`,
    );
  if (code === 'FST_FILES_LIMIT') {
    return validationError(`ValidationException: At most ${MAX_FILES} files can be uploaded at a time.`, [
      { itemId: 'file', message: `more than ${MAX_FILES} files: upload at most ${MAX_FILES} at a time`, validatorName: 'FileUpload' },
    ]);
  }
  if (
    code === 'FST_FIELDS_LIMIT' ||
    code === 'FST_PARTS_LIMIT' ||
    code === 'FST_PROTO_VIOLATION' ||
    code === 'FST_INVALID_MULTIPART_CONTENT_TYPE'
  ) {
    return validationError('ValidationException: The multipart body has too many parts or is not well formed.', [
      { itemId: 'body', message: (err as Error).message, validatorName: 'FileUpload' },
    ]);
  }
  // busboy's own refusals of a malformed body ("Unexpected end of form", a bad boundary...).
  if (err instanceof Error && !(err as { statusCode?: number }).statusCode && /form|boundary|multipart|part/i.test(err.message)) {
    return validationError('ValidationException: The multipart body is not well formed.', [
      { itemId: 'body', message: err.message, validatorName: 'FileUpload' },
    ]);
  }
  return err;
}

/** `attachment; filename="…"` with an RFC 5987 `filename*` for names that are not plain ASCII. */
function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}
