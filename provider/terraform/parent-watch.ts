/**
 * The provider process ends when the process that started it does (issue 37).
 *
 * OpenTofu and Terraform start the provider with go-plugin and stop it with the controller's
 * `Shutdown` at the end of a walk. When `tofu` itself is killed (SIGKILL, an OOM kill, a CI
 * runner's timeout), nothing stops it: the Go peer providers exit at once (go-plugin's Go server
 * ends when its client's connection does), and the Node provider lived on as an orphan, holding the
 * run's state (held deletes, list-read windows, a configured client with the keys).
 *
 * What the protocol gives does not say it reliably: go-plugin's client passes its own stdin to the
 * plugin (`cmd.Stdin = os.Stdin`, hashicorp/go-plugin `client.go`), so the plugin's stdin is the
 * terminal or `/dev/null` of `tofu`, which closes at once or never; and gRPC's channel may close an
 * idle connection and dial again later (grpc-go's idle mode), so a closed connection is no death.
 * The parent is: the launcher `exec`s node, so the parent is `tofu` itself, and when it dies the
 * process is given another parent (PID 1 or a subreaper) on Linux and macOS, which
 * `process.ppid` shows. Windows gives no new parent, so there the first parent is asked whether it
 * still runs (`process.kill(pid, 0)`). Checked every {@link PARENT_PROBE_MS} by an `unref`ed timer,
 * which keeps no process alive and costs a system call.
 *
 * The Pulumi doors (the native provider, the dynamic-provider host) end with their engine by
 * dialling its address at the same period (`../core/host.ts` `watchEngine`).
 * @module
 */

/** How often the parent is checked. */
export const PARENT_PROBE_MS = 500;

/** How the parent is seen: the current parent pid, whether a pid runs, the platform. */
export interface ParentProbe {
  /** The current parent pid (`process.ppid`, read anew each time). */
  ppid: () => number;
  /** Whether a process with that pid runs (`process.kill(pid, 0)`; `EPERM` is a running process). */
  alive: (pid: number) => boolean;
  platform: NodeJS.Platform;
}

/** Whether a process with that pid runs: signal 0 checks without sending anything. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** The probe of this process. */
export const processProbe = (): ParentProbe => ({
  ppid: () => process.ppid,
  alive: pidAlive,
  platform: process.platform,
});

/**
 * Whether the parent that was `first` is gone: another parent now (Linux, macOS), or on Windows,
 * which keeps the first parent's pid, no process of that pid.
 */
export function parentGone(first: number, probe: ParentProbe): boolean {
  if (probe.platform === "win32") return first > 0 && !probe.alive(first);
  return probe.ppid() !== first;
}

/** What {@link watchParent} takes. */
export interface WatchParentOptions {
  /** How often the parent is checked; default {@link PARENT_PROBE_MS}. */
  intervalMs?: number;
  /** How the parent is seen; default this process's. */
  probe?: ParentProbe;
}

/** A running watch. */
export interface ParentWatch {
  /** The parent's pid when the watch started. */
  readonly parent: number;
  /** Stops the watch (`onGone` is then never called). */
  stop(): void;
}

/**
 * Watches the parent of this process: `onGone` is called once, with the parent's pid, when it is
 * gone. The timer is `unref`ed: the watch keeps no process running.
 */
export function watchParent(
  onGone: (parent: number) => void,
  { intervalMs = PARENT_PROBE_MS, probe = processProbe() }: WatchParentOptions = {},
): ParentWatch {
  const parent = probe.ppid();
  const timer = setInterval(() => {
    if (!parentGone(parent, probe)) return;
    clearInterval(timer);
    onGone(parent);
  }, intervalMs);
  timer.unref();
  return { parent, stop: () => clearInterval(timer) };
}
