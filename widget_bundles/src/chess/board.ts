// Renders a board as 64 elements with `data-square` (and `data-piece` where occupied): the DOM contract.

import { el } from "../shared/dom";
import { FILES, glyph, parsePlacement, pieceName } from "./fen";

export interface BoardView {
  fen: string;
  flipped: boolean;
  lastMove?: { from: string; to: string } | null;
  checkSquare?: string | null;
  selected?: string | null;
  targets?: ReadonlySet<string>;
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
  const board = el("div", { class: "wm-board", role: "grid", "aria-label": "chess board" });
  const squares = squaresInOrder(view.flipped);
  squares.forEach((square, index) => {
    const fileIndex = FILES.indexOf(square[0] ?? "a");
    const rank = Number(square[1]);
    const light = (fileIndex + rank) % 2 === 0;
    const piece = pieces.get(square);
    const classes = ["sq", light ? "light" : "dark"];
    if (view.lastMove && (view.lastMove.from === square || view.lastMove.to === square)) classes.push("last");
    if (view.checkSquare === square) classes.push("check");
    if (view.selected === square) classes.push("selected");
    if (view.targets?.has(square)) classes.push(piece ? "target capture" : "target");
    const node = el("div", {
      class: classes.join(" "),
      "data-square": square,
      "data-piece": piece,
      role: "gridcell",
      "aria-label": piece ? `${square} ${pieceName(piece)}` : square,
    });
    if (piece) node.appendChild(el("span", { class: `piece ${piece[0]}` }, glyph(piece[1] ?? "")));
    if (index % 8 === 0) node.appendChild(el("span", { class: "coord rank" }, String(rank)));
    if (index >= 56) node.appendChild(el("span", { class: "coord file" }, square[0]));
    board.appendChild(node);
  });
  return board;
}
