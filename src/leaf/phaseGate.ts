/**
 * Keeps the grading of a task's episodes apart in time from the agent phases of
 * the same task (issue 20 #11).
 *
 * While an episode is graded, its hidden tests exist in its repo copy and run.
 * Concurrent episodes share the machine: host-wide counters, CPU and memory
 * pressure, timing. A grading run can signal a hidden test's text through any
 * of them to a concurrent agent of the same task (a red team did it through
 * `/proc/loadavg`, 4 bits per symbol). The sandbox narrows the counters (fixed
 * views of `/proc/loadavg`, `/proc/meminfo`, `/proc/stat`, `/proc/vmstat`) but
 * cannot close timing channels; this gate closes the leak where it matters:
 * no agent of task T runs while a grading of T runs. Agents of other tasks may
 * (another task's hidden tests are of no use to them).
 *
 * Rules: an episode of T may start its agent phase only while no grading of T
 * runs or waits (so gradings are never starved by new agents); a grading of T
 * starts once no agent phase of T runs. Gradings of T run together. No cycle
 * of waits exists: agents wait only for gradings, gradings only for agents
 * already running, which never wait.
 */
export class TaskPhaseGate {
  private readonly agents = new Map<string, number>();
  private readonly gradings = new Map<string, number>();
  private readonly gradeWaiting = new Map<string, number>();
  private waiters: (() => void)[] = [];

  /** True when an agent phase of `taskId` may start now. */
  agentMayStart(taskId: string): boolean {
    return (this.gradings.get(taskId) ?? 0) === 0 && (this.gradeWaiting.get(taskId) ?? 0) === 0;
  }

  /** Resolves at the gate's next change (a phase entered or left). */
  changed(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Enters an agent phase of `taskId` (waiting while a grading of it runs or waits); resolves with the function that leaves it. */
  async enterAgent(taskId: string): Promise<() => void> {
    while (!this.agentMayStart(taskId)) await this.changed();
    return this.enter(this.agents, taskId);
  }

  /** Enters a grading of `taskId` (waiting while an agent phase of it runs); resolves with the function that leaves it. */
  async enterGrading(taskId: string): Promise<() => void> {
    bump(this.gradeWaiting, taskId, 1);
    try {
      while ((this.agents.get(taskId) ?? 0) > 0) await this.changed();
    } finally {
      bump(this.gradeWaiting, taskId, -1);
    }
    return this.enter(this.gradings, taskId);
  }

  private enter(counts: Map<string, number>, taskId: string): () => void {
    bump(counts, taskId, 1);
    this.notify();
    let left = false;
    return () => {
      if (left) return;
      left = true;
      bump(counts, taskId, -1);
      this.notify();
    };
  }

  /** Wakes every waiter of {@link changed} (an abort: the waiters look again and stop). */
  wake(): void {
    this.notify();
  }

  private notify(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

function bump(m: Map<string, number>, k: string, d: number): void {
  const n = (m.get(k) ?? 0) + d;
  if (n === 0) m.delete(k);
  else m.set(k, n);
}
