/**
 * What the check machinery (checkContexts / fixLoaded) can re-derive, found by asking it about
 * two snippets whose answers are known: a load result used without a wait (a waitcnt checker
 * must ask for a wait) and an SGPR written by a VALU and read by a VMEM instruction at once (a
 * hazard checker must ask for 5 wait states; LLVM GCNHazardRecognizer::checkVMEMHazards, every target).
 * Answers are cached per target.
 */
import { loadText } from '../load.js';
import { kernelContexts } from '../analysis/context.js';
import { checkContexts } from '../check/check.js';

export interface Machinery {
  /** A registered checker asks for s_waitcnt where a load result is used too early. */
  waits: boolean;
  /** A registered checker asks for s_nop where a hazard needs wait states. */
  hazards: boolean;
}

const cache = new Map<string, Machinery>();

const WAIT_PROBE = ['global_load_dword v0, v[2:3], off', 'v_add_u32 v1, v0, v0', 's_endpgm'].join('\n');
const HAZARD_PROBE = ['v_readfirstlane_b32 s4, v0', 'buffer_load_dword v1, v2, s[4:7], 0 offen', 's_endpgm'].join('\n');

function asks(text: string, arch: string, kind: 'waitcnt' | 'nop'): boolean {
  try {
    const l = loadText(text, '<probe>', { arch });
    const checks = checkContexts(kernelContexts(l));
    return checks.some((c) => c.findings.some((f) => f.severity === 'error' && f.fix?.kind === kind));
  } catch {
    return false;
  }
}

export function machinery(arch: string): Machinery {
  let m = cache.get(arch);
  if (!m) {
    m = { waits: asks(WAIT_PROBE, arch, 'waitcnt'), hazards: asks(HAZARD_PROBE, arch, 'nop') };
    cache.set(arch, m);
  }
  return m;
}

/** Forget the cached answers (tests that register checkers). */
export function resetMachinery(): void { cache.clear(); }
