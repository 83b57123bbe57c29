/**
 * The contract's version: every HTTP answer carries it in `Ink-Version`, the
 * OpenAPI document as `info.version`; openapi/CHANGELOG.md lists what each
 * version changed.
 */

/** The contract version (semantic versioning: a breaking change bumps the major). */
export const CONTRACT_VERSION = "1.0.0";

/** The response header that carries {@link CONTRACT_VERSION}. */
export const CONTRACT_VERSION_HEADER = "Ink-Version";
