// Ids earlier results carried (gameId, formId), remembered across page loads so that a reload finds the game just
// played. Each host the playground plays is another principal whose state the others cannot reach, so the ids are
// kept in localStorage per server origin, host and signed-in subject; newest first and bounded. A value a later
// call needs is the newest one of its name. An id the server no longer knows (make dev starts with empty state) is
// forgotten when a call that used it answers not-found.

import { isRecord } from "../shared/dom";
import { failureOf } from "../shared/errors";
import { remember } from "./args-schema";

const LIMIT = 20;
const PREFIX = "widget-mcp-playground:ids";

interface Known {
  field: string;
  value: string;
}

/** The apps answer an id their caller has no state under with `<thing>_not_found` (game_not_found, form_not_found),
 * a code an error result carries in `_meta.error`. */
function saysNotFound(result: Record<string, unknown>): boolean {
  return failureOf(result)?.code.endsWith("_not_found") ?? false;
}

export class KnownIds {
  /** The newest remembered value of each field, under the current host. */
  readonly seen = new Map<string, unknown>();
  private key: string | null = null;

  /** From now on remembers under this host (and signed-in subject), and takes what was remembered there. */
  useScope(host: string, subject?: string): void {
    this.key = `${PREFIX}:${location.origin}:${host}${subject ? `:${encodeURIComponent(subject)}` : ""}`;
    try {
      localStorage.removeItem(`${PREFIX}:${location.origin}`); // the list kept per origin only: whose ids they were is unknown
    } catch {
      // storage refused: nothing to tidy
    }
    this.seen.clear();
    for (const { field, value } of this.stored()) if (!this.seen.has(field)) this.seen.set(field, value);
  }

  /** Takes the ids `result` carries into `seen`, and stores them first in this host's list. */
  learn(result: Record<string, unknown>): void {
    const fresh = new Map<string, unknown>();
    remember(fresh, result);
    if (!fresh.size) return;
    for (const [field, value] of fresh) this.seen.set(field, value);
    const added = [...fresh].map(([field, value]) => ({ field, value: String(value) }));
    this.store([...added, ...this.stored().filter((k) => !added.some((a) => a.field === k.field && a.value === k.value))]);
  }

  /** After `result` answered a call made with `args`: when it says not found, each argument holding a remembered id
   * is forgotten, with the older values of its name (a server that lost an id was started after the older ones
   * were made, so it lost them too). Returns the fields forgotten, so that the next call makes a new id first. */
  forgetGone(args: Record<string, unknown>, result: Record<string, unknown>): string[] {
    if (!saysNotFound(result)) return [];
    let list = this.stored();
    const gone: string[] = [];
    for (const [field, value] of Object.entries(args)) {
      const at = list.findIndex((k) => k.field === field && k.value === value);
      if (at < 0 && this.seen.get(field) !== value) continue;
      gone.push(field);
      if (at >= 0) list = list.filter((k, i) => k.field !== field || i < at);
      const newer = list.find((k) => k.field === field);
      if (newer) this.seen.set(field, newer.value);
      else this.seen.delete(field);
    }
    if (gone.length) this.store(list);
    return gone;
  }

  private stored(): Known[] {
    if (!this.key) return [];
    try {
      const value: unknown = JSON.parse(localStorage.getItem(this.key) ?? "[]");
      if (!Array.isArray(value)) return [];
      return value.filter((k): k is Known => isRecord(k) && typeof k.field === "string" && typeof k.value === "string");
    } catch {
      return []; // unreadable (or storage refused): start afresh
    }
  }

  private store(list: Known[]): void {
    if (!this.key) return;
    try {
      localStorage.setItem(this.key, JSON.stringify(list.slice(0, LIMIT)));
    } catch {
      // storage full or refused: the ids still serve this page
    }
  }
}
