/** The benches' command-line options: `--name value`, read from process.argv. */

/** The value after `--name`, if the option is given. */
export function option(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** `--name`'s value as text, else `dflt`. */
export const textOption = (name: string, dflt: string): string => option(name) ?? dflt;

/** `--name`'s value as a number (NaN when it is not one), else `dflt`. */
export function numberOption(name: string, dflt: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
}
