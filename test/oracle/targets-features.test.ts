/**
 * The feature sets in src/targets must match what LLVM 22 accepts: every probe of
 * FEATURE_PROBES on every target (the same run as scripts/probe-features.ts). A missing
 * llvm-mc or llc fails the test; it never skips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { probeFeatures, formatTable, requireLlvm, llvmBin } from '../../scripts/probe-features.js';
import { ALL_FEATURES, TARGET_NAMES } from '../../src/targets/index.js';

test('LLVM 22 tools for the feature probes are present', async () => {
  const version = await requireLlvm(llvmBin());
  assert.match(version, /^22\./, `feature probes were measured with LLVM 22; ${llvmBin()} has ${version}`);
});

test('every target feature agrees with llvm-mc / llc probes', async () => {
  const report = await probeFeatures();
  assert.equal(report.cells.length, ALL_FEATURES.length * TARGET_NAMES.length);
  assert.deepEqual(report.disagreements.map((d) => `${d.target} ${d.feature}: LLVM ${d.probed ? 'present' : 'absent'} (${d.detail})`), [],
    '\n' + formatTable(report));
});
