import { Box, Text } from 'ink';
import { type Line, liveFrame, type LiveState } from '../live-frame.ts';

/** Draws lines of segments: one Text per line, one span per segment (no wrapping: lines are clipped). */
export function Frame({ lines }: { lines: Line[] }) {
  return (
    <Box flexDirection="column">
      {lines.map((line, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: a frame's rows are screen positions, and so are their keys
        <Text key={i} wrap="truncate">
          {line.length
            ? line.map((s, j) => (
                <Text
                  // biome-ignore lint/suspicious/noArrayIndexKey: a row's segments are positions in it, and so are their keys
                  key={j}
                  color={s.color === 'bold' ? undefined : s.color}
                  bold={s.bold || s.color === 'bold'}
                  dimColor={s.dim}
                  inverse={s.inverse}
                >
                  {s.text}
                </Text>
              ))
            : ' '}
        </Text>
      ))}
    </Box>
  );
}

/** Draws a frame of the live view. */
export function LiveView(props: LiveState) {
  return <Frame lines={liveFrame(props)} />;
}
