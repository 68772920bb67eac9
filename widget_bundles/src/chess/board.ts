// Renders a board as 64 elements with `data-square` (and `data-piece` where occupied): the DOM contract.
// An interactive board is an ARIA grid (rows of gridcells, one of them in the tab order); a snapshot is a table.
// Every square's accessible name says the square, its piece and its role in the position; the glyphs, and the
// coordinates drawn over the edge squares (two overlays outside the rows), are hidden from assistive technology.

import { el } from "../shared/dom";
import { FILES, glyph, parsePlacement, pieceName } from "./fen";

export interface BoardView {
  fen: string;
  flipped: boolean;
  lastMove?: { from: string; to: string } | null;
  checkSquare?: string | null;
  selected?: string | null;
  targets?: ReadonlySet<string>;
  /** Interactive boards only: the square in the tab order (roving tabindex). */
  focus?: string;
}

export function squaresInOrder(flipped: boolean): string[] {
  const squares: string[] = [];
  for (let row = 0; row < 8; row++) {
    for (let col = 0; col < 8; col++) {
      const rank = flipped ? row + 1 : 8 - row;
      const file = FILES[flipped ? 7 - col : col];
      squares.push(`${file}${rank}`);
    }
  }
  return squares;
}

/** Where the king of `turn` stands (for the check highlight). */
export function kingSquare(fen: string, turn: "white" | "black"): string | null {
  const code = turn === "white" ? "wK" : "bK";
  for (const [square, piece] of parsePlacement(fen)) if (piece === code) return square;
  return null;
}

export function renderBoard(view: BoardView): HTMLElement {
  const pieces = parsePlacement(view.fen);
  const live = view.focus !== undefined;
  const board = el("div", { class: "wm-board", role: live ? "grid" : "table", "aria-label": "Chess board" });
  let row: HTMLElement | null = null;
  const order = squaresInOrder(view.flipped);
  order.forEach((square, index) => {
    const fileIndex = FILES.indexOf(square[0] ?? "a");
    const rank = Number(square[1]);
    const piece = pieces.get(square);
    const classes = ["sq", (fileIndex + rank) % 2 ? "dark" : "light"];
    const name = [square, piece ? pieceName(piece) : "empty"];
    const last = view.lastMove && (view.lastMove.from === square || view.lastMove.to === square);
    const selected = view.selected === square;
    if (last) classes.push("last");
    if (view.checkSquare === square) {
      classes.push("check");
      name.push("in check");
    }
    if (selected) classes.push("selected");
    if (view.targets?.has(square)) {
      classes.push(piece ? "target capture" : "target");
      name.push(piece ? "capture" : "legal move");
    }
    if (last) name.push(view.lastMove?.to === square ? "moved here" : "moved from here");
    if (index % 8 === 0) board.appendChild((row = el("div", { class: "rank", role: "row" })));
    const node = el("div", {
      class: classes.join(" "),
      "data-square": square,
      "data-piece": piece,
      role: live ? "gridcell" : "cell",
      "aria-label": name.join(", "),
      "aria-selected": live && selected ? "true" : undefined,
      tabindex: live ? (view.focus === square ? 0 : -1) : undefined,
    });
    if (piece) node.appendChild(el("span", { class: `piece ${piece[0]}`, "aria-hidden": "true" }, glyph(piece[1] ?? "")));
    row?.appendChild(node);
  });
  const coords = (kind: string, labels: string[]): HTMLElement =>
    el("div", { class: `coords ${kind}`, "aria-hidden": "true" }, ...labels.map((label) => el("span", {}, label)));
  board.append(coords("ranks", order.filter((_, i) => i % 8 === 0).map((s) => s[1] ?? "")), coords("files", order.slice(56).map((s) => s[0] ?? "")));
  return board;
}
