import { Box, Text } from 'ink';
import type { Finding } from '../../diagnose/finding.ts';
import type { PodView } from '../../model/pod.ts';
import type { RolloutModel } from '../../model/rollout.ts';
import { findingView } from '../findings.ts';
import { COLUMN_GAP, columnWidths } from '../table.ts';
import { countsLine, headline, installationLine, NEW_POD_HEADER, newPodRow, OLD_POD_HEADER, oldPodRow, summaryLine, type Cell, type Tone } from '../status-rows.ts';

const toneColor: Record<Tone, string | undefined> = { good: 'green', wait: 'yellow', bad: 'red', muted: 'gray', plain: undefined };

function Row({ cells, widths }: { cells: Cell[]; widths: number[] }) {
  return (
    <Box>
      {cells.map((c, i) => (
        <Box key={i} width={(widths[i] ?? 0) + COLUMN_GAP} flexShrink={0}>
          <Text color={toneColor[c.tone]} wrap="truncate">
            {c.text}
          </Text>
        </Box>
      ))}
    </Box>
  );
}

function Table({ header, rows }: { header: string[]; rows: Cell[][] }) {
  const all = [header.map((h) => ({ text: h, tone: 'plain' as Tone })), ...rows];
  const widths = columnWidths(all.map((r) => r.map((c) => c.text)));
  return (
    <Box flexDirection="column">
      <Row cells={all[0] ?? []} widths={widths} />
      {rows.map((r, i) => (
        <Row key={i} cells={r} widths={widths} />
      ))}
    </Box>
  );
}

export interface StatusViewProps {
  model: RolloutModel;
  now: number;
  finding?: Finding | undefined;
  problem?: string | undefined;
  /** terminal rows for the pod tables: a frame taller than the terminal cannot be redrawn in place */
  podRows?: number | undefined;
}

/**
 * Rows stay in name order (a pod does not jump when it turns Ready); when they do not fit, the pods that still
 * matter (terminating, not Ready) are kept over the Ready ones and the cut ones are counted.
 */
function fit(pods: PodView[], rows: number): { shown: PodView[]; hidden: number } {
  if (pods.length <= rows) return { shown: pods, hidden: 0 };
  const urgent = (p: PodView) => (p.terminating ? 0 : p.ready.status === 'True' ? 2 : 1);
  const kept = new Set([...pods].sort((a, b) => urgent(a) - urgent(b) || a.name.localeCompare(b.name)).slice(0, Math.max(1, rows - 1)));
  return { shown: pods.filter((p) => kept.has(p)), hidden: pods.length - kept.size };
}

/** The live status: rollout header, new pods gating, old pods draining, HAPTIC leader and fleet. */
export function StatusView({ model, now, finding, problem, podRows = Infinity }: StatusViewProps) {
  const head = headline(model);
  const newRows = model.oldPods.length ? Math.max(2, Math.ceil(podRows * 0.6)) : podRows;
  const fresh = fit(model.newPods, newRows);
  const old = fit(model.oldPods, Math.max(2, podRows - Math.min(newRows, model.newPods.length)));
  const view = finding && findingView(finding);
  return (
    <Box flexDirection="column">
      <Text bold>{summaryLine(model)}</Text>
      <Text color={toneColor[head.tone]}>{head.text}</Text>
      <Text>  {countsLine(model)}</Text>
      {model.newReplicaSet && (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>
            NEW PODS <Text dimColor>replicaset/{model.newReplicaSet.name} (revision {model.newReplicaSet.revision ?? '?'})</Text>
          </Text>
          {model.newPods.length ? <Table header={NEW_POD_HEADER} rows={fresh.shown.map((p) => newPodRow(p, now))} /> : <Text dimColor>  no pods yet</Text>}
          {fresh.hidden > 0 && <Text dimColor>  … and {fresh.hidden} more</Text>}
        </Box>
      )}
      {model.oldPods.length > 0 && (
        <Box flexDirection="column" marginTop={1}>
          <Text bold>OLD PODS <Text dimColor>draining</Text></Text>
          <Table header={OLD_POD_HEADER} rows={old.shown.map((p) => oldPodRow(p, now))} />
          {old.hidden > 0 && <Text dimColor>  … and {old.hidden} more</Text>}
        </Box>
      )}
      <Box flexDirection="column" marginTop={1}>
        {model.installations.length ? (
          model.installations.map((i) => {
            const line = installationLine(i);
            return (
              <Text key={`${i.namespace}/${i.templateConfig}`} color={toneColor[line.tone]}>
                {line.text}
              </Text>
            );
          })
        ) : (
          <Text color="red">HAPTIC: {model.hapticUnreadable ?? 'no installation found'}</Text>
        )}
      </Box>
      {view && (
        <Box flexDirection="column" marginTop={1}>
          <Text color={view.color}>
            {view.icon} {view.headline}
          </Text>
          {view.evidence.map((e, i) => (
            <Text key={i} dimColor>
              {'    '}
              {e}
            </Text>
          ))}
          {view.fix && <Text>    fix: {view.fix}</Text>}
        </Box>
      )}
      {problem && <Text color="yellow">retrying: {problem}</Text>}
      <Text dimColor>{model.phase === 'complete' ? '' : 'Ctrl-C to stop watching (the rollout goes on)'}</Text>
    </Box>
  );
}
