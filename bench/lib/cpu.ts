import { readdirSync, readFileSync } from 'node:fs';

// Linux reports process times in clock ticks of 1/100 s (USER_HZ) on every common platform.
const TICKS_PER_SECOND = 100;

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces). */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null; // gone
  }
}

/**
 * CPU seconds used so far by a process and all its descendants, those that ended included
 * (their times are added to the parent that waited for them): a database server's
 * connections, say. On a shared, noisy machine, CPU per request is steadier than requests
 * per second. Null where /proc is not there (not Linux).
 */
export function treeCpuSeconds(root: number): number | null {
  const children = new Map<number, number[]>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return null;
  }
  for (const name of pids) {
    const fields = statFields(Number(name));
    if (!fields) continue;
    // fields[1] is the parent's pid (field 4 of stat; the first two were cut above).
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), Number(name)]);
  }
  let ticks = 0;
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop() as number;
    const fields = statFields(pid);
    if (!fields) continue;
    // utime, stime, cutime, cstime: fields 14-17 of stat.
    ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    pending.push(...(children.get(pid) ?? []));
  }
  return ticks / TICKS_PER_SECOND;
}

/** CPU seconds used so far by the process itself, without its children (a collector's own). */
export function ownCpuSeconds(pid: number): number | null {
  const fields = statFields(pid);
  return fields ? (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND : null;
}
