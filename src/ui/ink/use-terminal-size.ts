import { useEffect, useState } from 'react';

const current = () => ({ width: process.stdout.columns || 100, height: process.stdout.rows || 40 });

/** The terminal's size, kept current as it is resized: the live views fit their frames to it. */
export function useTerminalSize(): { width: number; height: number } {
  const [size, setSize] = useState(current);
  useEffect(() => {
    const resize = () => setSize(current());
    process.stdout.on('resize', resize);
    return () => void process.stdout.off('resize', resize);
  }, []);
  return size;
}
