/**
 * The operands with a grammar of their own that llvm-mc checks value by value: hwreg(...),
 * sendmsg(...), ds_swizzle's offset:swizzle(...), the DPP controls and the 16-bit immediates of
 * s_getreg / s_setreg / s_sendmsg and branches. Each function returns llvm-mc 22's message for
 * the first violation, or undefined; nothing stricter than llvm-mc.
 *
 * Sources: LLVM AMDGPUAsmParser.cpp (parseHwregFunc / validateHwreg, parseSendMsgBody /
 * validateSendMsg, parseSwizzleOperand and its parseSwizzle* helpers, parseDPPCtrl /
 * validateDPPCtrl, parseSOPPBrTarget), AMDGPUBaseInfo.cpp (SendMsg::isValidMsgId /
 * isValidMsgOp / isValidMsgStream / msgRequiresOp / msgSupportsStream) and AMDGPUAsmUtils.cpp
 * (the hwreg, message and operation name tables). Every rule and message was measured with
 * llvm-mc 22 -triple=amdgcn-amd-amdhsa on gfx906, gfx908, gfx90a, gfx942 and gfx950
 * (test/oracle/probes/special-operands.s).
 */
import { evalExpr } from '../asm/expr.js';
import type { FuncAux } from '../asm/store.js';
import { HWREG_IDS } from './hwreg.js';
import type { Target } from './target.js';

/** Hardware registers of gfx940 and later only (AMDGPUAsmUtils.cpp: isGFX940). */
const HWREG_GFX940 = new Set(['HW_REG_XCC_ID', 'HW_REG_SQ_PERF_SNAPSHOT_DATA', 'HW_REG_SQ_PERF_SNAPSHOT_DATA1',
  'HW_REG_SQ_PERF_SNAPSHOT_PC_LO', 'HW_REG_SQ_PERF_SNAPSHOT_PC_HI']);
/**
 * Names LLVM knows for other generations (GFX10+, GFX11+, GFX12): llvm-mc says "not supported on
 * this GPU" for these, "expected a register name" for other unknown names (both are errors).
 */
const HWREG_OTHER_GENERATIONS = new Set(['HW_REG_FLAT_SCR_LO', 'HW_REG_FLAT_SCR_HI', 'HW_REG_XNACK_MASK', 'HW_REG_HW_ID1',
  'HW_REG_HW_ID2', 'HW_REG_POPS_PACKER', 'HW_REG_PERF_SNAPSHOT_DATA', 'HW_REG_PERF_SNAPSHOT_PC_LO', 'HW_REG_PERF_SNAPSHOT_PC_HI',
  'HW_REG_SHADER_CYCLES', 'HW_REG_SHADER_CYCLES_HI', 'HW_REG_WAVE_MODE', 'HW_REG_EXCP_FLAG_PRIV', 'HW_REG_SCRATCH_BASE_LO',
  'HW_REG_DVGPR_ALLOC_LO']);

/** Message ids by name on GFX9 (AMDGPUAsmUtils.cpp: Msg[]). */
const MSG_IDS: Readonly<Record<string, number>> = {
  MSG_INTERRUPT: 1, MSG_GS: 2, MSG_GS_DONE: 3, MSG_SAVEWAVE: 4, MSG_STALL_WAVE_GEN: 5, MSG_HALT_WAVES: 6,
  MSG_ORDERED_PS_DONE: 7, MSG_EARLY_PRIM_DEALLOC: 8, MSG_GS_ALLOC_REQ: 9, MSG_GET_DOORBELL: 10, MSG_SYSMSG: 15,
};
/** Message names of other generations ("specified message id is not supported on this GPU"). */
const MSG_OTHER_GENERATIONS = new Set(['MSG_GET_DDID', 'MSG_RTN_GET_DOORBELL', 'MSG_DEALLOC_VGPRS', 'MSG_HS_TESSFACTOR']);
const MSG_GS = 2;
const MSG_GS_DONE = 3;
const MSG_SYSMSG = 15;
/** Operation names: GS_OP_* for every message but MSG_SYSMSG, whose operations are SYSMSG_OP_* (getMsgOpId). */
const GS_OPS: Readonly<Record<string, number>> = { GS_OP_NOP: 0, GS_OP_CUT: 1, GS_OP_EMIT: 2, GS_OP_EMIT_CUT: 3 };
const SYS_OPS: Readonly<Record<string, number>> = { SYSMSG_OP_ECC_ERR_INTERRUPT: 1, SYSMSG_OP_REG_RD: 2, SYSMSG_OP_TTRACE_PC: 4 };
/** SYSMSG_OP_HOST_TRAP_ACK (3) is GFX8 and older. */
const SYS_OP_UNSUPPORTED = 'SYSMSG_OP_HOST_TRAP_ACK';

const NONE = (): undefined => undefined;

/** Argument k's value: with the file's symbols when the parser kept them (null: does not evaluate), else without symbols. */
function argValue(f: FuncAux, k: number): number | null | undefined {
  if (f.vals) return f.vals[k] ?? null;
  return evalExpr(f.args[k]!, NONE); // undefined: unknown (a symbol the object form lost)
}

/** Shape errors shared by hwreg and sendmsg: empty arguments, too many. */
function shapeError(f: FuncAux, max: number): string | undefined {
  if (f.args.length === 0 || f.args.some((a) => a === '')) return 'unknown token in expression';
  if (f.args.length > max) return 'expected a closing parenthesis';
  return undefined;
}

/** hwreg(NAME_OR_ID[, offset, size]) on the target. */
export function hwregError(f: FuncAux, target: Target): string | undefined {
  const shape = shapeError(f, 3);
  if (shape) return shape;
  if (f.args.length === 2) return 'expected a comma';
  const name = f.args[0]!;
  if (Object.hasOwn(HWREG_IDS, name)) {
    if (HWREG_GFX940.has(name) && !target.has('gfx940-insts')) return 'invalid hardware register: not supported on this GPU';
  } else if (HWREG_OTHER_GENERATIONS.has(name)) {
    return 'invalid hardware register: not supported on this GPU';
  } else {
    const id = argValue(f, 0);
    if (id === null) return 'expected a register name or an absolute expression';
    if (id !== undefined && !(id >= 0 && id <= 63)) return 'invalid hardware register: only 6-bit values are legal';
  }
  if (f.args.length === 3) {
    const off = argValue(f, 1);
    const size = argValue(f, 2);
    if (off === null || size === null) return 'expected absolute expression';
    if (off !== undefined && !(off >= 0 && off <= 31)) return 'invalid bit offset: only 5-bit values are legal';
    if (size !== undefined && !(size >= 1 && size <= 32)) return 'invalid bitfield width: only values from 1 to 32 are legal';
  }
  return undefined;
}

/** sendmsg(MSG[, OP[, STREAM]]): validateSendMsg. Strict when the message is named, else only the field widths. */
export function sendmsgError(f: FuncAux): string | undefined {
  const shape = shapeError(f, 3);
  if (shape) return shape;
  const msgName = f.args[0]!;
  let msg: number | null | undefined;
  const strict = Object.hasOwn(MSG_IDS, msgName);
  if (strict) msg = MSG_IDS[msgName]!;
  else if (MSG_OTHER_GENERATIONS.has(msgName)) return 'specified message id is not supported on this GPU';
  else {
    msg = argValue(f, 0);
    if (msg === null) return 'expected a message name or an absolute expression';
  }
  let op: number | null | undefined = 0;
  let opUnsupported = false;
  if (f.args.length >= 2) {
    const opName = f.args[1]!;
    const names = msg === MSG_SYSMSG ? SYS_OPS : GS_OPS;
    if (Object.hasOwn(names, opName)) op = names[opName]!;
    else if (msg === MSG_SYSMSG && opName === SYS_OP_UNSUPPORTED) opUnsupported = true;
    else {
      op = argValue(f, 1);
      if (op === null) return 'expected an operation name or an absolute expression';
    }
  }
  let stream: number | null | undefined = 0;
  if (f.args.length === 3) {
    stream = argValue(f, 2);
    if (stream === null) return 'expected absolute expression';
  }
  if (msg === undefined) return undefined;
  if (!strict) {
    if (!(msg >= 0 && msg <= 15)) return 'invalid message id';
    if (op !== undefined && !(op >= 0 && op <= 7)) return 'invalid operation id';
    if (stream !== undefined && !(stream >= 0 && stream <= 3)) return 'invalid message stream id';
    return undefined;
  }
  const requiresOp = msg === MSG_GS || msg === MSG_GS_DONE || msg === MSG_SYSMSG;
  const opDefined = f.args.length >= 2;
  if (requiresOp !== opDefined) return opDefined ? 'message does not support operations' : 'missing message operation';
  if (opUnsupported) return 'specified operation id is not supported on this GPU';
  if (op === undefined) return undefined;
  if (requiresOp) {
    const named = Object.values(msg === MSG_SYSMSG ? SYS_OPS : GS_OPS).includes(op);
    if (!named || (msg === MSG_GS && op === 0)) return 'invalid operation id';
  }
  const supportsStream = (msg === MSG_GS || msg === MSG_GS_DONE) && op !== 0;
  if (!supportsStream && f.args.length === 3) return 'message operation does not support streams';
  if (stream === undefined) return undefined;
  if (supportsStream ? !(stream >= 0 && stream <= 3) : stream !== 0) return 'invalid message stream id';
  return undefined;
}

function isPowerOfTwo(v: number): boolean {
  return Number.isInteger(v) && v > 0 && (v & (v - 1)) === 0;
}

/**
 * The value text of ds_swizzle_b32's offset when written as swizzle(MODE, ...). Values that do not
 * evaluate without symbols are not judged.
 */
export function swizzleError(value: string): string | undefined {
  const m = /^swizzle\s*\((.*)\)\s*$/s.exec(value);
  if (!m) return undefined;
  const parts = m[1]!.split(',').map((x) => x.trim());
  const mode = parts[0]!;
  const nums = parts.slice(1).map((x) => evalExpr(x, NONE));
  const count = (n: number): string | undefined => (parts.length - 1 < n ? 'expected a comma' : parts.length - 1 > n ? 'expected a closing parentheses' : undefined);
  const groupSize = (v: number | undefined, lo: number, hi: number): string | undefined => {
    if (v === undefined) return undefined;
    if (v < lo || v > hi) return `group size must be in the interval [${lo},${hi}]`;
    if (!isPowerOfTwo(v)) return 'group size must be a power of two';
    return undefined;
  };
  switch (mode) {
    case 'QUAD_PERM':
      return count(4) ?? (nums.some((v) => v !== undefined && !(v >= 0 && v <= 3)) ? 'expected a 2-bit lane id' : undefined);
    case 'BITMASK_PERM': {
      const c = count(1);
      if (c) return c;
      const s = /^"(.*)"$/.exec(parts[1]!);
      if (!s) return undefined;
      if (s[1]!.length !== 5) return 'expected a 5-character mask';
      return /^[01pi]{5}$/.test(s[1]!) ? undefined : 'invalid mask';
    }
    case 'BROADCAST': {
      const e = count(2) ?? groupSize(nums[0], 2, 32);
      if (e) return e;
      const lane = nums[1];
      return lane !== undefined && nums[0] !== undefined && !(lane >= 0 && lane < nums[0]) ? 'lane id must be in the interval [0,group size - 1]' : undefined;
    }
    case 'SWAP': return count(1) ?? groupSize(nums[0], 1, 16);
    case 'REVERSE': return count(1) ?? groupSize(nums[0], 2, 32);
    case 'FFT': return count(1) ?? (nums[0] !== undefined && !(nums[0] >= 0 && nums[0] <= 31) ? 'FFT swizzle must be in the interval [0,31]' : undefined);
    case 'ROTATE': {
      const c = count(2);
      if (c) return c;
      if (nums[0] !== undefined && nums[0] !== 0 && nums[0] !== 1) return 'direction must be 0 (left) or 1 (right)';
      return nums[1] !== undefined && !(nums[1] >= 0 && nums[1] <= 31) ? 'number of threads to rotate must be in the interval [0,31]' : undefined;
    }
    default: return 'expected a swizzle mode';
  }
}

/** DPP control modifiers of GFX9 (dpp_ctrl: one per instruction). */
export const DPP_CONTROLS: ReadonlySet<string> = new Set(['quad_perm', 'row_shl', 'row_shr', 'row_ror', 'wave_shl', 'wave_rol',
  'wave_shr', 'wave_ror', 'row_mirror', 'row_half_mirror', 'row_bcast', 'row_newbcast']);
/** DPP modifiers of GFX10+ only (llvm-mc on GFX9: "not a valid operand."). */
export const DPP_GFX10: ReadonlySet<string> = new Set(['row_share', 'row_xmask', 'dpp8', 'fi']);

/** One DPP control's value: llvm-mc's message when it is out of range on the target. */
export function dppControlError(name: string, value: number | undefined, target: Target): string | undefined {
  if (name === 'row_newbcast' && !target.has('gfx90a-insts')) return 'not a valid operand.';
  if (value === undefined) return undefined;
  switch (name) {
    case 'row_shl': case 'row_shr': case 'row_ror':
      return value >= 1 && value <= 15 ? undefined : `invalid ${name} value`;
    case 'wave_shl': case 'wave_rol': case 'wave_shr': case 'wave_ror':
      return value === 1 ? undefined : `invalid ${name} value`;
    case 'row_bcast':
      return value === 15 || value === 31 ? undefined : 'invalid row_bcast value';
    case 'row_newbcast':
      return value >= 0 && value <= 15 ? undefined : 'invalid row_newbcast value';
    case 'bound_ctrl':
      return value === 0 || value === 1 ? undefined : 'invalid bound_ctrl value.';
    default: return undefined;
  }
}

/** The simm16 of s_getreg / s_setreg / s_sendmsg written as a number: 0..65535. */
export function simm16Error(v: number): string | undefined {
  return v >= 0 && v <= 0xffff ? undefined : 'invalid immediate: only 16-bit values are legal';
}

/** A branch target written as a number: a 16-bit signed or unsigned jump offset. */
export function branchOffsetError(v: number): string | undefined {
  return v >= -32768 && v <= 0xffff ? undefined : 'expected a 16-bit signed jump offset';
}
