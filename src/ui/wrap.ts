import { visibleWidth } from './table.ts';

/**
 * Text wrapped at word boundaries to `width` columns, so a terminal never breaks a word: a continued line is
 * indented two more than the line it continues. A word wider than the width stays whole; colour codes do not count.
 * Without a width (not a terminal) the text is kept as it is, as kubectl keeps its lines for logs and pipes.
 */
export function wrapText(text: string, width: number | undefined): string {
  if (!width || width < 20) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}

function wrapLine(line: string, width: number): string[] {
  if (visibleWidth(line) <= width) return [line];
  const lead = /^ */.exec(line)![0];
  const indent = ' '.repeat(Math.min(lead.length + 2, Math.floor(width / 2)));
  // words and the runs of spaces between them, so that spacing inside a line is kept where it is not broken
  const parts = line.slice(lead.length).split(/( +)/);
  const out: string[] = [];
  let current = lead + parts[0];
  for (let i = 2; i < parts.length; i += 2) {
    const [gap, word] = [parts[i - 1]!, parts[i]!];
    if (visibleWidth(current + gap + word) <= width) current += gap + word;
    else {
      out.push(current);
      current = indent + word;
    }
  }
  out.push(current);
  return out;
}

/** The width to wrap text printed on stdout at: the terminal's, one column short as the live view draws; none
 * when stdout is not a terminal. */
export const terminalWidth = (): number | undefined =>
  process.stdout.isTTY && process.stdout.columns ? process.stdout.columns - 1 : undefined;
