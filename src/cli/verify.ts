import { loadInput } from '../input.js';
import { verifyLoaded, formatVerify } from '../verify/verify.js';
import { failedInput } from './files.js';

export interface VerifyCliOptions {
  arch?: string;
  json?: boolean;
  perLane?: boolean;
}

/** `conductor verify ORIGINAL SCHEDULED [--arch T] [--json]`: exit 0 equivalent, 1 not, 2 bad input. */
export async function commandVerify(original: string, scheduled: string, opts: VerifyCliOptions): Promise<number> {
  // on bad input, --json gives the failed file's record: ORIGINAL's or SCHEDULED's, whichever failed
  let at = original;
  let r;
  try {
    const a = await loadInput(original, { arch: opts.arch });
    at = scheduled;
    const b = await loadInput(scheduled, { arch: opts.arch ?? a.target.name });
    r = verifyLoaded(a, b, { disambiguate: opts.perLane ? 'per-lane' : true });
  } catch (e) {
    return failedInput(at, e, opts.json);
  }
  if (opts.json) process.stdout.write(JSON.stringify({ original, scheduled, ...r }, null, 2) + '\n');
  else process.stdout.write(formatVerify(r, original, scheduled) + '\n');
  return r.equivalent ? 0 : 1;
}
