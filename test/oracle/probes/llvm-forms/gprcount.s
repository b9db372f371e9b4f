// mcpu: gfx906 gfx90a gfx942
// .amdgcn.next_free_vgpr / _sgpr: one past the highest VGPR / SGPR an operand named so far
// (AMDGPUAsmParser::updateGprCountSymbols); VCC, EXEC and M0 are not counted; a .set resets them;
// an operand reads the count as the registers to its left left it.
  v_mov_b32 v7, s9
  s_mov_b32 s0, .amdgcn.next_free_vgpr
  s_mov_b32 s1, .amdgcn.next_free_sgpr
  s_mov_b64 s[20:21], vcc
  s_mov_b64 exec, s[4:5]
  s_mov_b32 m0, .amdgcn.next_free_sgpr
  v_lshlrev_b64 v[2:3], 1, v[4:5]
  v_mov_b32 v1, .amdgcn.next_free_vgpr
.set .amdgcn.next_free_vgpr, 0
  v_mov_b32 v5, 0
  v_mov_b32 v1, .amdgcn.next_free_vgpr
  v_mov_b32 v9, .amdgcn.next_free_vgpr
  s_mov_b32 s30, .amdgcn.next_free_sgpr
  v_add_u32 v1, .amdgcn.next_free_vgpr, v20
  s_endpgm
