// The two calls @rjsf/utils makes to fast-uri (resolving and comparing `$ref`/`$id` URIs), on the browser's
// own URL parser: 6 KB of gzip the form bundle does not need. Relative references (the usual "#/$defs/x",
// or `$id`s without a scheme) are resolved against a placeholder base and given back relative.

const PLACEHOLDER = "wm-relative://base/";

function absolute(uri: string, base?: string): string {
  try {
    return new URL(uri, base ? new URL(base, PLACEHOLDER) : PLACEHOLDER).href;
  } catch {
    return uri;
  }
}

function relative(href: string): string {
  return href.startsWith(PLACEHOLDER) ? href.slice(PLACEHOLDER.length) : href;
}

export function resolve(base: string | undefined, ref: string): string {
  return relative(absolute(ref, base));
}

export function equal(a: string, b: string): boolean {
  return absolute(String(a)) === absolute(String(b));
}

export default { resolve, equal };
