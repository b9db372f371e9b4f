/** VALU writes VCC or EXEC, then a VALU reads VCCZ/EXECZ as a data source: 5 wait states. */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, anyWithin, REF } from './util.js';

const FACT: WaitStateFact = {
  what: 'VALU writes VCC or EXEC -> VALU reads src_vccz/src_execz as data',
  w: all(5),
  source: `${REF.cdna3} Table 11 Case 5; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11; the ISA wait-state tables (CDNA3 ISA §4.5 Table 11, MI200 ISA §4.5 Table 9, CDNA4 ISA §4.5 Table 11; rules LLVM does not implement)`,
  llvm: all(0),
  note: 'Not modeled by LLVM.',
};

/** A constant operand that reads VCCZ or EXECZ. */
const ZSRC = /^(src_)?(vccz|execz)$/;
const isZsrc = (n: string): boolean => ZSRC.test(n);
/** Whether an instruction reads VCCZ or EXECZ (a function made once: the scan runs it on every instruction). */
const readsZsrc = (f: { readonly consts: readonly string[] }): boolean => f.consts.length > 0 && f.consts.some(isZsrc);

export const valuVccExecWriteVcczRead: HazardRule = {
  id: 'valu-vcc-exec-write-vccz-read',
  present: (h) => h.has('zsrc', readsZsrc),
  description: 'A VALU reads VCCZ or EXECZ as data less than 5 wait states after a VALU wrote VCC or EXEC.',
  appliesTo: () => true,
  source: FACT.source,
  facts: [FACT],
  check(h, i) {
    const c = h.f[i]!;
    if (!c.valu) return undefined;
    if (c.consts.length === 0) return undefined;
    const vccz = c.consts.includes('src_vccz') || c.consts.includes('vccz');
    const execz = c.consts.includes('src_execz') || c.consts.includes('execz');
    if (!vccz && !execz) return undefined;
    return anyWithin(h, i, FACT, 'valu-vcc-exec', (p) => p.valu && (p.writesVcc || p.writesExec),
      `reads ${vccz ? 'VCCZ' : 'EXECZ'}, derived from a register written by`)
      .filter((n) => (vccz && h.f[n.producer]!.writesVcc) || (execz && h.f[n.producer]!.writesExec));
  },
};
