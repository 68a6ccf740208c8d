/** A fenced block of a Markdown file: its language, the file name after it (```js name.mjs), its code and line. */
export interface FencedBlock {
  lang: string;
  file?: string;
  code: string;
  /** The line of its opening fence (1-based). */
  line: number;
}

export function readmeBlocks(markdown: string, from = 0): FencedBlock[] {
  const lines = markdown.split('\n');
  const blocks: FencedBlock[] = [];
  let open: { lang: string; file?: string; line: number; body: string[] } | undefined;
  lines.forEach((text, i) => {
    if (i < from) return;
    const fence = /^```(\S*)\s*(\S*)\s*$/.exec(text);
    if (!open && fence) open = { lang: fence[1], file: fence[2] || undefined, line: i + 1, body: [] };
    else if (open && text.startsWith('```')) {
      blocks.push({ lang: open.lang, file: open.file, code: `${open.body.join('\n')}\n`, line: open.line });
      open = undefined;
    } else open?.body.push(text);
  });
  return blocks;
}

/** A line that starts Ledgerport (the test runs its own server instead). */
export const startsLedgerport = (line: string) =>
  /^\s*(npm (run )?start(:local)?\b|bin\/ledgerport serve\b|node dist\/main\.js\b)/.test(line);

/**
 * The tour as one bash script: every `sh` block from "## Using the API" to the end, in order, each announced by a
 * marker line (so a failure names its block), stopping at the first command that fails or the first unset variable.
 */
export function tourScript(readme: string): string {
  const from = readme.split('\n').findIndex((line) => line === '## Using the API');
  if (from < 0) throw new Error('the README has no "## Using the API" section');
  const blocks = readmeBlocks(readme, from).filter((b) => b.lang === 'sh');
  const parts = blocks.map((block, i) => {
    const code = block.code
      .split('\n')
      .map((line) => (startsLedgerport(line) ? ': # Ledgerport is started by the test' : line))
      .join('\n');
    return `echo "::block ${i + 1} line ${block.line}"\n${code}`;
  });
  return ['set -eu', ...parts, 'echo "::tour complete"', ''].join('\n');
}
