/**
 * SALU writes M0, then an instruction reads M0 through a path that is not interlocked: 1 wait
 * state. Two groups: messages and GDS/GWS (s_sendmsg, s_sendmsghalt, s_ttracedata, DS with gds,
 * ds_gws_*, ds_ordered_count), and the M0-addressed LDS accesses (s_movrel*, ds_*_addtid,
 * VINTRP, LDS-DMA, LDS_DIRECT).
 */
import type { HazardRule, WaitStateFact } from '../types.js';
import { all, P, REF, scalarRaw } from './util.js';
import { M0 } from '../../asm/registers.js';
import type { HazardInsn } from '../context.js';

const MSG_FACT: WaitStateFact = {
  what: 'SALU writes M0 -> s_sendmsg/s_sendmsghalt/s_ttracedata or GDS/GWS',
  w: all(1),
  source: `LLVM GCNHazardRecognizer::checkReadM0Hazards (isSendMsgTraceDataOrGDS); ${REF.cdna3} Table 11 Case 11; ${REF.mi200} §4.5 Table 9`,
};
const LDS_FACT: WaitStateFact = {
  what: 'SALU writes M0 -> s_movrel*, ds_read/write_addtid, VINTRP, LDS-DMA, buffer_store_lds_dword, LDS_DIRECT',
  w: all(1),
  source: `LLVM GCNHazardRecognizer::checkReadM0Hazards; ${REF.cdna3} Table 11 Cases 16-17; ${REF.mi200} §4.5 Table 9; ${REF.cdna4} §4.5 Table 11`,
};

function msgConsumer(c: HazardInsn): boolean {
  const n = c.name;
  if (n === 's_sendmsg' || n === 's_sendmsghalt' || n === 's_ttracedata') return true;
  if (!c.ds) return false;
  if (n === 'ds_nop' || n === 'ds_permute_b32' || n === 'ds_bpermute_b32') return false;
  const space = c.ri.info.mem?.space;
  return space === 'gds' || space === 'gws' || n === 'ds_ordered_count';
}

function ldsConsumer(c: HazardInsn): boolean {
  const n = c.name;
  if (n.startsWith('s_movrel')) return true;
  if (n === 'ds_read_addtid_b32' || n === 'ds_write_addtid_b32') return true;
  if (c.ri.info.encoding === 'vintrp') return true;
  if (c.ldsDma) return true;
  return c.consts.includes('lds_direct') || c.consts.includes('src_lds_direct');
}

export const saluM0WriteMsgGds: HazardRule = {
  id: 'salu-m0-write-msg-gds',
  present: (h) => h.has(...P.saluM0),
  description: 's_sendmsg, s_ttracedata or a GDS/GWS instruction issues right after an SALU wrote M0.',
  appliesTo: () => true,
  source: MSG_FACT.source,
  facts: [MSG_FACT],
  check(h, i) {
    if (!msgConsumer(h.f[i]!)) return undefined;
    return scalarRaw(h, i, [M0], MSG_FACT, ...P.saluM0, 'reads');
  },
};

export const saluM0WriteLdsM0Read: HazardRule = {
  id: 'salu-m0-write-lds-m0-read',
  present: (h) => h.has(...P.saluM0),
  description: 'An instruction that takes an LDS address or index from M0 issues right after an SALU wrote M0.',
  appliesTo: () => true,
  source: LDS_FACT.source,
  facts: [LDS_FACT],
  check(h, i) {
    if (!ldsConsumer(h.f[i]!)) return undefined;
    return scalarRaw(h, i, [M0], LDS_FACT, ...P.saluM0, 'reads');
  },
};
