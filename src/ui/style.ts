import type { Severity } from '../types/finding.ts';

/** Colour: off with --no-color; else FORCE_COLOR decides, then NO_COLOR, then whether the stream is a terminal. */
export function colorEnabled(noColorFlag = false, stream: { isTTY?: boolean } = process.stdout): boolean {
  if (noColorFlag) return false;
  if (process.env.FORCE_COLOR !== undefined) return process.env.FORCE_COLOR !== '0';
  if (process.env.NO_COLOR) return false;
  return stream.isTTY === true;
}

const codes = { red: 31, green: 32, yellow: 33, blue: 34, gray: 90, bold: 1 } as const;
export type Color = keyof typeof codes;

export type Painter = (color: Color, text: string) => string;

export function painter(enabled: boolean): Painter {
  return (color, text) => (enabled ? `\u001b[${codes[color]}m${text}\u001b[${color === 'bold' ? 22 : 39}m` : text);
}

export const severityIcon: Record<Severity, { icon: string; color: Color }> = {
  blocker: { icon: '✗', color: 'red' },
  error: { icon: '✗', color: 'red' },
  warning: { icon: '!', color: 'yellow' },
  info: { icon: '·', color: 'blue' },
  ok: { icon: '✓', color: 'green' },
};
