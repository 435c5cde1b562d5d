/**
 * The provider process ends when the engine does.
 *
 * The engine starts the dynamic-provider host (`@pulumi/pulumi/cmd/dynamic-provider`) through a
 * shell shim that does not `exec` node, with the engine's gRPC address as its one argument
 * (`main(process.argv.slice(2))` in that file), and stops it at the end of a run. When `pulumi`
 * itself is killed (SIGKILL, an OOM kill, a CI runner's timeout), nothing stops the host: it kept
 * serving, and finishing, the requests in flight, and it lived on as an orphan. Its parent is the
 * shim, not the engine, so a changed parent pid says nothing.
 *
 * So every {@link ENGINE_PROBE_MS} (half a second, as the Terraform door checks its parent,
 * `../terraform/parent-watch.ts`: a run killed, no request leaves the process a second later) the
 * host dials the engine's address: a refused connection means the engine is gone, and the process
 * exits (what it was sending is then in the state as a pending operation, which `flagstack
 * recover` settles). It exits at once, except while a create whose answer shows what no read
 * shows again is in flight ({@link holdExit}: an environment's SDK
 * keys, noted for `recover` by `./created-journal.ts`): it waits for that answer, at most
 * {@link HOLD_EXIT_MS}. Any other dial error (a busy machine) is not taken as death. The timer is
 * `unref`ed and does nothing outside that host.
 * @module
 */
import { connect } from "node:net";

/** How often the engine's address is dialled. */
export const ENGINE_PROBE_MS = 500;

/** The engine's `host:port` when this process is the dynamic-provider host, else `undefined`. */
export function engineAddress(
  argv: readonly string[] = process.argv,
): { host: string; port: number } | undefined {
  const script = (argv[1] ?? "").replace(/\\/g, "/");
  if (!/\/cmd\/dynamic-provider(\/index\.js)?$/.test(script)) return undefined;
  const m = /^(.*):(\d+)$/.exec(argv[2] ?? "");
  if (!m) return undefined;
  return { host: (m[1] as string).replace(/^\[|\]$/g, ""), port: Number(m[2]) };
}

let watching = false;

/** The longest the process waits for held work once its engine is gone. */
export const HOLD_EXIT_MS = 30_000;

const held = new Set<Promise<unknown>>();

/**
 * Marks `work` as work the process finishes before it exits when its engine is gone (at most
 * {@link HOLD_EXIT_MS}); returns it.
 */
export function holdExit<T>(work: Promise<T>): Promise<T> {
  held.add(work);
  const done = () => {
    held.delete(work);
  };
  work.then(done, done);
  return work;
}

/** Resolves when every held work has settled, or after `ms`. */
export async function heldWorkSettled(ms = HOLD_EXIT_MS): Promise<void> {
  if (held.size === 0) return;
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled([...held]),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}

/**
 * Starts watching the engine (once per process; a no-op outside the dynamic-provider host).
 * `onGone` defaults to exiting the process with status 1; it runs once the held work has settled.
 */
export function watchEngine(
  argv: readonly string[] = process.argv,
  onGone: () => void = () => process.exit(1),
  intervalMs = ENGINE_PROBE_MS,
  holdMs = HOLD_EXIT_MS,
): void {
  const address = engineAddress(argv);
  if (address === undefined || watching) return;
  watching = true;
  const timer = setInterval(() => {
    const socket = connect(address);
    socket.once("connect", () => socket.destroy());
    socket.once("error", (e: NodeJS.ErrnoException) => {
      socket.destroy();
      if (e.code === "ECONNREFUSED") {
        clearInterval(timer);
        void heldWorkSettled(holdMs).then(onGone);
      }
    });
  }, intervalMs);
  timer.unref();
}
