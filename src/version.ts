/** The version printed by --version and written into SARIF output. */
export const VERSION = '0.1.0';
