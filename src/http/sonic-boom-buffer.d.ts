// sonic-boom's own declarations type `write` for its text mode only; with `contentMode: 'buffer'`
// (documented in its README) it takes Buffers, which is how the process log uses it
// (log-destination.ts).
import 'sonic-boom';

declare module 'sonic-boom' {
  interface SonicBoom {
    write(data: Buffer): boolean;
  }
}
