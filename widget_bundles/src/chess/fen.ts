// Reads the piece placement of a FEN into square → piece code ("wP", "bK", …).

export const FILES = "abcdefgh";

export function parsePlacement(fen: string): Map<string, string> {
  const pieces = new Map<string, string>();
  const rows = (fen.split(" ")[0] ?? "").split("/");
  rows.slice(0, 8).forEach((row, index) => {
    const rank = 8 - index;
    let file = 0;
    for (const ch of row) {
      if (/[1-8]/.test(ch)) {
        file += Number(ch);
      } else if (/[pnbrqkPNBRQK]/.test(ch) && file < 8) {
        const side = ch === ch.toUpperCase() ? "w" : "b";
        pieces.set(`${FILES[file]}${rank}`, side + ch.toUpperCase());
        file += 1;
      }
    }
  });
  return pieces;
}

const GLYPHS = "♚♛♜♝♞♟";
const OUTLINES = "♔♕♖♗♘♙";
const LETTERS = "KQRBNP";
export const NAMES: Record<string, string> = { K: "king", Q: "queen", R: "rook", B: "bishop", N: "knight", P: "pawn" };

/** The glyph of a piece type letter (either case), in text presentation: solid, or drawn in outline. */
export function glyph(letter: string, outline = false): string {
  const index = letter ? LETTERS.indexOf(letter.toUpperCase()) : -1;
  return `${index < 0 ? "?" : (outline ? OUTLINES : GLYPHS)[index]}\uFE0E`;
}

export function pieceName(code: string): string {
  return `${code[0] === "w" ? "white" : "black"} ${NAMES[code[1] ?? ""] ?? "piece"}`;
}
