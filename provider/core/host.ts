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
 * So once per second the host dials the engine's address: a refused connection means the engine
 * is gone, and the process exits at once (what it was sending is then in the state as a pending
 * operation, which `flagstack recover` settles). Any other dial error (a busy machine) is not
 * taken as death. The timer is `unref`ed and does nothing outside that host.
 * @module
 */
import { connect } from "node:net";

/** How often the engine's address is dialled. */
export const ENGINE_PROBE_MS = 1000;

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

/**
 * Starts watching the engine (once per process; a no-op outside the dynamic-provider host).
 * `onGone` defaults to exiting the process with status 1.
 */
export function watchEngine(
  argv: readonly string[] = process.argv,
  onGone: () => void = () => process.exit(1),
  intervalMs = ENGINE_PROBE_MS,
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
        onGone();
      }
    });
  }, intervalMs);
  timer.unref();
}
