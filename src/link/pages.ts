import type { CustomParams } from './custom-params.js';
import type { AuthorizationChoice, AuthorizationField, StatementReport } from '../connectors/connector.js';
import { inlineCode } from '../docs/html.js';
import { h, hiddenFields, layout, type Brand } from './layout.js';
import type { LinkStatusCode } from './redirect.js';

/** How a platform appears on the company's Link page. */
export interface PlatformChoice {
  key: string;
  name: string;
  logoUrl: string;
  /**
   * `choose`: a button that starts (or resumes) a connection; `connected`: linked, nothing to do;
   * `unavailable`: the company's one accounting connection is with another platform.
   */
  state: 'choose' | 'connected' | 'unavailable';
  /** Short status of the company's existing connection(s) to the platform, e.g. `Connected`. */
  status?: string;
}

export interface PlatformGroup {
  /** `Accounting`, `Banking` or `Commerce`. */
  sourceType: string;
  platforms: PlatformChoice[];
}

const SOURCE_TYPE_HINTS: Record<string, string> = {
  Accounting: 'Your accounting software: invoices, bills, accounts and reports.',
  Banking: 'Your bank accounts and transactions.',
  Commerce: 'Your online store or payments: orders, customers and payouts.',
};

function statusBadge(status: string | undefined): string {
  if (!status) return '';
  const linked = status === 'Connected' ? ' linked' : '';
  return `<span class="status${linked}"><span class="sr-only">, </span>${h(status)}</span>`;
}

function platformItem(p: PlatformChoice): string {
  const inner = `<img src="${h(p.logoUrl)}" alt="" width="40" height="40"><span class="name">${h(p.name)}</span>${statusBadge(p.status)}`;
  if (p.state === 'choose') {
    return `<li><button type="submit" class="platform" name="platformKey" value="${h(p.key)}">${inner}</button></li>`;
  }
  return `<li><div class="platform">${inner}</div></li>`;
}

export function companyPage(model: {
  brand: Brand;
  companyId: string;
  companyName: string;
  groups: PlatformGroup[];
  custom: CustomParams;
  error?: string;
}): string {
  const groups = model.groups
    .filter((g) => g.platforms.length > 0)
    .map((g) => {
      const id = `group-${g.sourceType.toLowerCase()}`;
      const hint = SOURCE_TYPE_HINTS[g.sourceType];
      return `<section aria-labelledby="${h(id)}">
<h2 id="${h(id)}">${h(g.sourceType)}</h2>
${hint ? `<p class="hint">${h(hint)}</p>` : ''}
<ul class="platforms">
${g.platforms.map(platformItem).join('\n')}
</ul>
</section>`;
    });
  const error = model.error ? `<p class="notice error" role="alert">${h(model.error)}</p>` : '';
  const main = `<h1>Connect your business data</h1>
<p>${h(model.brand.name)} would like to connect to the data of <strong>${h(model.companyName)}</strong>. Choose a platform to connect.</p>
${error}
<form method="post" action="/link/company/${h(encodeURIComponent(model.companyId))}/connections">
${hiddenFields(model.custom)}
${groups.join('\n')}
</form>`;
  return layout({ title: 'Connect your business data', brand: model.brand, main });
}

export interface StartPageModel {
  brand: Brand;
  companyName: string;
  platform: { name: string; logoUrl: string; sourceType: string };
  /** The connection's current status. */
  status: string;
  /**
   * `choice`: choose one option (the Sandbox's data set size); `credentials`: the platform's form; `files`: upload
   * files (read, then shown before they are imported); `unsupported`: this page cannot authorise it.
   */
  method: 'choice' | 'credentials' | 'files' | 'unsupported';
  /** For `files`: the file types the picker suggests. */
  accept?: string;
  /** For `files`: the problems found in the files last sent, one per item. */
  problems?: readonly { itemId?: string; message: string }[];
  /** For `choice`: the lead text (a template) and the choice. */
  description?: string;
  choice?: AuthorizationChoice;
  /** For `credentials`: the label of a button that signs in on the platform's consent page instead (OAuth2). */
  oauthButton?: string;
  /** The credentials form's fields, and what was typed before (passwords are never sent back). */
  fields?: readonly AuthorizationField[];
  values?: Record<string, string>;
  /** The option checked (the choice's default unless the end user picked another). */
  selected?: string;
  formAction: string;
  backUrl: string;
  custom: CustomParams;
  error?: string;
  notice?: string;
  /** The emulator's scenarios the form offers (a Sandbox's, with `EMULATOR=true`). */
  scenarios?: readonly string[];
}

function choiceOptions(choice: AuthorizationChoice, selected: string): string {
  return choice.options
    .map((option) => {
      const id = `${choice.name}-${option.value}`;
      const hint = option.hint ? `<span class="hint">${h(option.hint)}</span>` : '';
      return (
        `<div class="choice"><input type="radio" id="${h(id)}" name="${h(choice.name)}" value="${h(option.value)}"${option.value === selected ? ' checked' : ''}>` +
        `<label for="${h(id)}">${h(option.label)}${hint}</label></div>`
      );
    })
    .join('\n');
}

/** A lead text template with `{sourceType}`, `{company}` (bold) and `{brand}` filled in, escaped. */
function lead(template: string, values: { sourceType: string; company: string; brand: string }): string {
  return template
    .split(/(\{sourceType\}|\{company\}|\{brand\})/)
    .map((part) => {
      if (part === '{sourceType}') return h(values.sourceType.toLowerCase());
      if (part === '{company}') return `<strong>${h(values.company)}</strong>`;
      if (part === '{brand}') return h(values.brand);
      return h(part);
    })
    .join('');
}

function credentialFields(fields: readonly AuthorizationField[], values: Record<string, string>): string {
  return fields
    .map((f) => {
      const id = `field-${f.name}`;
      const value = f.type === 'password' ? '' : (values[f.name] ?? '');
      // A platform's hint may name a command or a path in backticks (as its declaration is written): shown as code.
      const hint = f.hint ? `<span class="hint" id="${id}-hint">${inlineCode(h(f.hint))}</span>` : '';
      return (
        `<div class="field"><label for="${id}">${h(f.label)}${f.required ? '' : ' (optional)'}</label>${hint}` +
        `<input id="${id}" name="${h(f.name)}" type="${f.type}" value="${h(value)}"${f.required ? ' required' : ''}${f.type === 'password' ? ' autocomplete="off"' : ''}${f.hint ? ` aria-describedby="${id}-hint"` : ''}></div>`
      );
    })
    .join('\n');
}

function uploadForm(model: StartPageModel): string {
  const { platform } = model;
  const problems = model.problems?.length
    ? `<div class="notice error" role="alert"><p>Nothing was imported: ${model.problems.length === 1 ? 'a file could not be read' : 'some files could not be read'}.</p><ul class="problems">${model.problems.map((p) => `<li>${h(p.message.replace(/ Learn more at \S+$/, ''))}</li>`).join('')}</ul></div>`
    : '';
  const choice = model.choice
    ? `<div class="field"><label for="field-${h(model.choice.name)}">${h(model.choice.legend)}</label><select id="field-${h(model.choice.name)}" name="${h(model.choice.name)}">${model.choice.options.map((o) => `<option value="${h(o.value)}"${o.value === (model.selected ?? model.choice!.default) ? ' selected' : ''}>${h(o.label)}</option>`).join('')}</select></div>`
    : '';
  return `<div class="heading-row"><img src="${h(platform.logoUrl)}" alt="" width="48" height="48"><h1>Connect ${h(platform.name)}</h1></div>
${model.description ? `<p>${lead(model.description, { sourceType: platform.sourceType, company: model.companyName, brand: model.brand.name })}</p>` : ''}
${problems}
${model.error ? `<p class="notice error" role="alert">${h(model.error)}</p>` : ''}
<form method="post" action="${h(model.formAction)}" enctype="multipart/form-data">
${hiddenFields(model.custom)}
<label class="dropzone" for="statement-files"><strong>Drop your statement files here, or choose them</strong><span class="hint">Up to 20 files of up to 10 MB each. You will see what was read before anything is shared.</span>
<input type="file" id="statement-files" name="file" multiple${model.accept ? ` accept="${h(model.accept)}"` : ''} required></label>
${choice}
<div class="actions">
<button type="submit" class="button primary" name="action" value="preview">Read the files</button>
<button type="submit" class="button secondary" name="action" value="cancel" formnovalidate>Cancel</button>
</div>
</form>
<a class="back" href="${h(model.backUrl)}">Choose a different platform</a>`;
}

/** What was read from the files sent on the Link page, before the end user imports them. */
export function uploadPreviewPage(model: {
  brand: Brand;
  companyName: string;
  platform: { name: string; logoUrl: string };
  files: readonly { fileName: string; format?: string; statements?: readonly StatementReport[] }[];
  warnings: readonly string[];
  batch: string;
  formAction: string;
  custom: CustomParams;
}): string {
  const money = (n: number | null, currency: string) =>
    n === null ? 'not stated' : `${n.toLocaleString('en', { minimumFractionDigits: 2, maximumFractionDigits: 6 })} ${currency}`;
  const files = model.files
    .map((f) => {
      const statements = (f.statements ?? [])
        .map(
          (s) =>
            `<li><strong>${h(s.account)}</strong> (${h(s.currency)}), ${h(s.from)} to ${h(s.to)}: ${s.transactions} transaction${s.transactions === 1 ? '' : 's'}; ` +
            `opening balance ${h(money(s.openingBalance, s.currency))}, closing balance ${h(money(s.closingBalance, s.currency))}.` +
            `${s.reconciles ? (s.openingBalance === null ? '' : ' The balances add up.') : ' <strong>The balances do not add up</strong>: opening balance plus the transactions is not the closing balance.'}</li>`,
        )
        .join('\n');
      return `<section class="read" aria-label="${h(f.fileName)}"><h2>${h(f.fileName)}</h2><p>${h(f.format ?? '')} statement file</p><ul>\n${statements}\n</ul></section>`;
    })
    .join('\n');
  const warnings = model.warnings.length
    ? `<div class="notice error" role="alert"><p>Check before you import:</p><ul class="problems">${model.warnings.map((w) => `<li>${h(w)}</li>`).join('')}</ul></div>`
    : '';
  const main = `<div class="heading-row"><img src="${h(model.platform.logoUrl)}" alt="" width="48" height="48"><h1>Check what was read</h1></div>
<p>${h(model.brand.name)} will see these bank accounts and transactions of <strong>${h(model.companyName)}</strong>. Nothing is shared until you import them.</p>
${warnings}
${files}
<form method="post" action="${h(model.formAction)}">
${hiddenFields(model.custom)}
<input type="hidden" name="batch" value="${h(model.batch)}">
<div class="actions">
<button type="submit" class="button primary" name="action" value="import">Import</button>
<button type="submit" class="button secondary" name="action" value="discard">Choose other files</button>
</div>
</form>`;
  return layout({ title: 'Check what was read', brand: model.brand, main });
}

export function startPage(model: StartPageModel): string {
  if (model.method === 'files') return layout({ title: `Connect ${model.platform.name}`, brand: model.brand, main: uploadForm(model) });
  const { platform } = model;
  const error = model.error ? `<p class="notice error" role="alert">${h(model.error)}</p>` : '';
  const already = model.status === 'Linked' ? `<p class="notice success">${h(platform.name)} is already connected.</p>` : '';
  const notice = model.notice ? `<p class="notice" role="status">${h(model.notice)}</p>` : '';
  const scenarios = model.scenarios
    ? `<div class="field"><label for="field-scenario">Emulator scenario</label><select id="field-scenario" name="scenario"><option value="">None</option>${model.scenarios.map((s) => `<option value="${h(s)}">${h(s)}</option>`).join('')}</select></div>`
    : '';
  const body =
    model.method === 'credentials'
      ? `<fieldset>\n<legend>Sign in to ${h(platform.name)}</legend>\n${credentialFields(model.fields ?? [], model.values ?? {})}\n</fieldset>`
      : model.method === 'choice'
        ? [
            model.description
              ? `<p>${lead(model.description, { sourceType: platform.sourceType, company: model.companyName, brand: model.brand.name })}</p>`
              : '',
            model.choice
              ? `<fieldset>\n<legend>${h(model.choice.legend)}</legend>\n${choiceOptions(model.choice, model.selected ?? model.choice.default)}\n</fieldset>`
              : '',
          ]
            .filter(Boolean)
            .join('\n')
        : `<p class="notice">${h(platform.name)} cannot be connected from this page.</p>`;
  // After Connect, so that Enter in a field still means Connect; it needs no field filled in.
  const oauth =
    model.method === 'credentials' && model.oauthButton
      ? `<button type="submit" class="button secondary" name="action" value="oauth" formnovalidate>${h(model.oauthButton)}</button>\n`
      : '';
  const main = `<div class="heading-row"><img src="${h(platform.logoUrl)}" alt="" width="48" height="48"><h1>Connect ${h(platform.name)}</h1></div>
<p>${h(model.brand.name)} will be able to read ${h(platform.sourceType.toLowerCase())} data of <strong>${h(model.companyName)}</strong> from ${h(platform.name)}.</p>
${already}
${error}${notice}
<form method="post" action="${h(model.formAction)}">
${hiddenFields(model.custom)}
${body}
${scenarios}
<div class="actions">
<button type="submit" class="button primary" name="action" value="connect">${model.method === 'unsupported' ? 'Continue' : 'Connect'}</button>
${oauth}<button type="submit" class="button secondary" name="action" value="cancel">Cancel</button>
</div>
</form>
<a class="back" href="${h(model.backUrl)}">Choose a different platform</a>`;
  return layout({ title: `Connect ${platform.name}`, brand: model.brand, main });
}

/** After a consent that covers several organisations: the end user picks the one to connect. */
export function organisationPage(model: {
  brand: Brand;
  companyName: string;
  platform: { name: string; logoUrl: string };
  organisations: readonly { id: string; name: string }[];
  formAction: string;
  choice: string;
  error?: string;
}): string {
  const { platform } = model;
  const error = model.error ? `<p class="notice error" role="alert">${h(model.error)}</p>` : '';
  const options = model.organisations
    .map(
      (o, i) =>
        `<label class="choice"><input type="radio" name="organisation" value="${h(o.id)}"${i === 0 ? ' checked' : ''}> <span>${h(o.name)}</span></label>`,
    )
    .join('\n');
  const main = `<div class="heading-row"><img src="${h(platform.logoUrl)}" alt="" width="48" height="48"><h1>Choose an organisation</h1></div>
<p>You gave access to several ${h(platform.name)} organisations. Choose the one that holds the books of <strong>${h(model.companyName)}</strong>.</p>
${error}
<form method="post" action="${h(model.formAction)}">
<input type="hidden" name="choice" value="${h(model.choice)}">
<fieldset>
<legend>Organisation</legend>
${options}
</fieldset>
<div class="actions">
<button type="submit" class="button primary" name="action" value="connect">Connect</button>
<button type="submit" class="button secondary" name="action" value="cancel">Cancel</button>
</div>
</form>`;
  return layout({ title: `Choose an organisation`, brand: model.brand, main });
}

const FINISH_TEXT: Record<LinkStatusCode, { title: string; text: (platform: string) => string; tone: 'success' | 'error' | '' }> = {
  200: { title: 'Connected', text: (p) => `${p} is now connected. Thank you!`, tone: 'success' },
  201: { title: 'Already connected', text: (p) => `${p} was already connected, so nothing has changed.`, tone: 'success' },
  403: { title: 'Connection cancelled', text: (p) => `You cancelled connecting ${p}. Nothing was shared.`, tone: '' },
  500: {
    title: 'Something went wrong',
    text: (p) => `${p} could not be connected because of an unexpected error. Please try again later.`,
    tone: 'error',
  },
  501: { title: 'Not supported', text: (p) => `${p} cannot be connected from this page.`, tone: 'error' },
};

/** Shown when the client's profile has no redirect address. */
export function finishPage(model: { brand: Brand; statusCode: LinkStatusCode; platformName: string; backUrl: string }): string {
  const text = FINISH_TEXT[model.statusCode];
  const main = `<h1>${h(text.title)}</h1>
<p class="notice${text.tone ? ` ${text.tone}` : ''}" role="status">${h(text.text(model.platformName))}</p>
<p>You can close this page now.</p>
<a class="back" href="${h(model.backUrl)}">Connect another platform</a>`;
  return layout({ title: text.title, brand: model.brand, main });
}

const ERROR_TEXT: Record<number, { title: string; text: string }> = {
  400: { title: 'Something is wrong with this request', text: 'Please go back and try again.' },
  404: { title: 'Link not found', text: 'This link is not valid or no longer exists. Please ask for a new link.' },
  503: { title: 'Temporarily unavailable', text: 'This service is offline for maintenance. Please try again in a few minutes.' },
};

export function errorPage(statusCode: number): string {
  const text =
    ERROR_TEXT[statusCode] ??
    (statusCode < 500 ? ERROR_TEXT[400] : { title: 'Something went wrong', text: 'An unexpected error occurred. Please try again later.' });
  return layout({ title: text.title, main: `<h1>${h(text.title)}</h1>\n<p>${h(text.text)}</p>` });
}
