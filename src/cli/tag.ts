import { loadInput } from '../input.js';
import { ConductorError } from '../errors.js';
import { intOption } from './options.js';
import { failedInput } from './files.js';
import { prepareKernels } from '../schedule/kernel.js';
import { formatListing, kernelListing } from '../schedule/listing.js';
import { counted } from '../text.js';

export interface TagCliOptions {
  kernel?: string;
  region?: string;
  arch?: string;
  json?: boolean;
}

/**
 * `conductor tag FILE [--kernel K] [--region R] [--arch T] [--json]`: regions, tags, lines and metrics;
 * exit 2 on bad input (--json: the failed file's record).
 */
export async function commandTag(file: string, opts: TagCliOptions): Promise<number> {
  const region = intOption('--region', opts.region);
  let listings;
  try {
    const loaded = await loadInput(file, { arch: opts.arch });
    const kernels = prepareKernels(loaded, { kernel: opts.kernel }).filter((k) => k.n > 0);
    if (region !== undefined) {
      for (const k of kernels) {
        if (region >= k.regions.length) throw new ConductorError(`kernel ${k.name} has ${counted(k.regions.length, 'region')} (0..${k.regions.length - 1}); no region ${region}`);
      }
    }
    listings = kernels.map((k) => kernelListing(k, region));
  } catch (e) {
    return failedInput(file, e, opts.json);
  }
  if (opts.json) process.stdout.write(JSON.stringify({ file, kernels: listings }, null, 2) + '\n');
  else process.stdout.write(listings.map(formatListing).join('\n\n') + '\n');
  return 0;
}
