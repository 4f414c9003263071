// The part of uglify-js (which ships no types) that build.ts uses.
declare module 'uglify-js' {
  export function minify(
    code: string,
    options?: {
      compress?: Record<string, unknown>;
      mangle?: { reserved?: string[] };
      toplevel?: boolean;
    },
  ): { code: string; error?: Error };
}
