// Ids earlier results carried (gameId, formId), remembered across page loads so that a reload finds the game just
// played. Kept in localStorage under the server's origin, newest first and bounded; a value a later call needs is
// the newest one of its name.

import { isRecord } from "../shared/dom";
import { remember } from "./args-schema";

const LIMIT = 20;

interface Known {
  field: string;
  value: string;
}

function storageKey(): string {
  return `widget-mcp-playground:ids:${location.origin}`;
}

function stored(): Known[] {
  try {
    const value: unknown = JSON.parse(localStorage.getItem(storageKey()) ?? "[]");
    if (!Array.isArray(value)) return [];
    return value.filter((k): k is Known => isRecord(k) && typeof k.field === "string" && typeof k.value === "string");
  } catch {
    return []; // unreadable (or storage refused): start afresh
  }
}

/** The newest remembered value of each field. */
export function loadKnownIds(): Map<string, unknown> {
  const seen = new Map<string, unknown>();
  for (const { field, value } of stored()) if (!seen.has(field)) seen.set(field, value);
  return seen;
}

/** Takes the ids `result` carries into `seen`, and stores them first in the page's list. */
export function learnIds(seen: Map<string, unknown>, result: Record<string, unknown>): void {
  const fresh = new Map<string, unknown>();
  remember(fresh, result);
  if (!fresh.size) return;
  for (const [field, value] of fresh) seen.set(field, value);
  const added = [...fresh].map(([field, value]) => ({ field, value: String(value) }));
  const kept = stored().filter((k) => !added.some((a) => a.field === k.field && a.value === k.value));
  try {
    localStorage.setItem(storageKey(), JSON.stringify([...added, ...kept].slice(0, LIMIT)));
  } catch {
    // storage full or refused: the ids still serve this page
  }
}
