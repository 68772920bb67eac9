// Captured pieces as labelled material counts, e.g. "White has captured: 2 pawns, 1 knight (+5)": the counts from
// `_meta.captured` (the letters of the pieces each side took), the lead from the pieces left on the board, so a
// promotion or a game started from a position counts too.

import { el } from "../shared/dom";
import { NAMES, parsePlacement } from "./fen";

const VALUES: Record<string, number> = { P: 1, N: 3, B: 3, R: 5, Q: 9 };

/** White's material on the board minus Black's (pawn 1, knight and bishop 3, rook 5, queen 9). */
export function materialLead(fen: string): number {
  let lead = 0;
  for (const piece of parsePlacement(fen).values()) lead += (VALUES[piece[1] ?? ""] ?? 0) * (piece[0] === "w" ? 1 : -1);
  return lead;
}

/** "2 pawns, 1 knight", cheapest first, or "nothing". */
export function capturedText(taken: readonly string[]): string {
  const counts = Object.keys(VALUES)
    .map((letter) => [letter, taken.filter((t) => t.toUpperCase() === letter).length] as const)
    .filter(([, count]) => count > 0);
  return counts.map(([letter, count]) => `${count} ${NAMES[letter]}${count > 1 ? "s" : ""}`).join(", ") || "nothing";
}

export function renderMaterial(side: "white" | "black", taken: readonly string[], fen: string): HTMLElement {
  const who = side === "white" ? "White" : "Black";
  const lead = (side === "white" ? 1 : -1) * materialLead(fen);
  return el(
    "p",
    { class: "wm-material", "data-captured-by": side, "data-testid": `captured-${side}` },
    `${who} has captured: ${capturedText(taken)}`,
    lead > 0 ? el("span", { class: "lead", "aria-hidden": "true" }, ` (+${lead})`) : null,
    lead > 0 ? el("span", { class: "wm-sr-only" }, `, ${lead} ${lead > 1 ? "points" : "point"} ahead`) : null,
  );
}
