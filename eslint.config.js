// Lint configuration: typescript-eslint's recommended rules over the sources, scripts and tests.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'artifacts/', 'kernels/build/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // unused names are compile errors (tsconfig noUnusedLocals / noUnusedParameters)
      '@typescript-eslint/no-unused-vars': 'off',
    },
  },
);
