import { type Command, Option } from 'commander';
import type { CliOutput } from './cli-output';

export const OUTPUT_FORMATS = ['table', 'json', 'yaml'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** The options `addOutputOptions` adds, as commander hands them to an action. */
export interface OutputOptions {
  output?: OutputFormat;
  /** The older spelling of `--output json`. */
  json?: boolean;
  /** Only ids, one a line (for `ID=$(noetl ...)` and `xargs`). */
  quiet?: boolean;
}

/** `-o/--output table|json|yaml`, `--json`, and `-q/--quiet` unless the command prints no ids. */
export function addOutputOptions(command: Command, options: { quiet: boolean } = { quiet: true }): Command {
  command
    .addOption(new Option('-o, --output <format>', 'table (for people), json or yaml').choices(OUTPUT_FORMATS))
    .option('--json', 'the same as --output json');
  return options.quiet ? command.option('-q, --quiet', 'print only ids, one a line') : command;
}

export function outputFormat(options: OutputOptions): OutputFormat {
  return options.json ? 'json' : (options.output ?? 'table');
}

/** `value` as one JSON or YAML document; the YAML library loads only when asked for. */
export async function serialize(value: unknown, format: Exclude<OutputFormat, 'table'>): Promise<string> {
  if (format === 'json') return JSON.stringify(value, null, 2);
  const { stringify } = await import('yaml');
  return stringify(value).trimEnd();
}

/** How a list command shows its items. */
export interface Listing<T> {
  columns: ReadonlyArray<readonly [header: string, cell: (item: T) => string]>;
  id(item: T): string;
  /** The table's text when there is nothing: `no workers registered`. */
  empty: string;
}

/** Items as ids (--quiet), one JSON/YAML document, or a table with a header line. */
export async function printList<T>(items: T[], listing: Listing<T>, options: OutputOptions, output: CliOutput): Promise<void> {
  if (options.quiet) {
    for (const item of items) output.out(listing.id(item));
    return;
  }
  const format = outputFormat(options);
  if (format !== 'table') output.out(await serialize(items, format));
  else if (items.length === 0) output.out(listing.empty);
  else
    printTable([listing.columns.map(([header]) => header), ...items.map((item) => listing.columns.map(([, cell]) => cell(item)))], output);
}

/** One object: its id (--quiet), one JSON/YAML document, or what `human` prints. */
export async function printItem(item: unknown, id: string, options: OutputOptions, output: CliOutput, human: () => void): Promise<void> {
  const format = outputFormat(options);
  if (options.quiet) output.out(id);
  else if (format !== 'table') output.out(await serialize(item, format));
  else human();
}

/** Rows in columns two spaces apart, each as wide as its widest cell. */
export function printTable(rows: string[][], output: CliOutput): void {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((cells) => cells[i]!.length)));
  for (const cells of rows)
    output.out(
      cells
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd(),
    );
}
