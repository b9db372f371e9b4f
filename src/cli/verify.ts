import { loadInput } from '../input.js';
import { verifyLoaded, formatVerify } from '../verify/verify.js';

export interface VerifyCliOptions {
  arch?: string;
  json?: boolean;
  perLane?: boolean;
}

/** `conductor verify ORIGINAL SCHEDULED [--arch T] [--json]`: exit 0 equivalent, 1 not, 2 bad input. */
export async function commandVerify(original: string, scheduled: string, opts: VerifyCliOptions): Promise<number> {
  const a = await loadInput(original, { arch: opts.arch });
  const b = await loadInput(scheduled, { arch: opts.arch ?? a.target.name });
  const r = verifyLoaded(a, b, { disambiguate: opts.perLane ? 'per-lane' : true });
  if (opts.json) process.stdout.write(JSON.stringify({ original, scheduled, ...r }, null, 2) + '\n');
  else process.stdout.write(formatVerify(r, original, scheduled) + '\n');
  return r.equivalent ? 0 : 1;
}
