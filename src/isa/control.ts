/**
 * Control flow effect of an instruction, from its mnemonic (GFX9 SOPP / SOP1 branch and
 * program-end instructions; AMD Vega / CDNA ISA, "Program Flow Control").
 */
export type ControlKind =
  | 'none'
  | 'jump'      // s_branch: always taken
  | 'cjump'     // s_cbranch_*: taken or falls through
  | 'end'       // s_endpgm*: the wave ends
  | 'indirect'  // s_setpc_b64: jump to a computed address (a return, or a long branch)
  | 'call'      // s_swappc_b64 / s_call_b64: goes to a computed address and comes back
  | 'trap';     // s_rfe_b64, s_rfe_restore_b64: the trap handler's return to a saved PC

export function controlKind(base: string): ControlKind {
  if (base.charCodeAt(0) !== 115 /* s */) return 'none';
  if (base === 's_branch') return 'jump';
  if (base.startsWith('s_cbranch_')) return 'cjump';
  if (base.startsWith('s_endpgm')) return 'end';
  if (base === 's_setpc_b64') return 'indirect';
  if (base === 's_swappc_b64' || base === 's_call_b64') return 'call';
  // s_trap enters the trap handler, which may return to the next instruction (llvm.debugtrap's
  // `s_trap 3` does; LLVM's SIInsertWaitcnts and GCNHazardRecognizer go on through it): it falls
  // through, as an ordinary instruction (scheduling pins it as a message: schedule/kernel.ts)
  if (base === 's_rfe_b64' || base === 's_rfe_restore_b64') return 'trap';
  return 'none';
}
