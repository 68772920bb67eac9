// What the board still knows of a position whose result came without (some of) its `_meta`, which a host may
// drop (MCPJam's window.openai.callTool hands the widget `_meta: null`): never another position's legal moves
// (until a list comes with this position, the server alone decides), and the moves and captures carried on
// from the position the board knew.

import { parsePlacement } from "./fen";
import { UNSEEN, type GameMeta, type GameState } from "./game";

const START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR";

function counts(fen: string): Map<string, number> {
  const n = new Map<string, number>();
  for (const piece of parsePlacement(fen).values()) n.set(piece, (n.get(piece) ?? 0) + 1);
  return n;
}

/** The pieces taken between two positions of a game, listed under the side that took them (lowercase, as the
 *  server lists them); a pawn that promoted was not taken. */
export function takenBetween(before: string, after: string): { white: string[]; black: string[] } {
  const was = counts(before);
  const now = counts(after);
  const taken = { white: [] as string[], black: [] as string[] };
  for (const side of "wb") {
    const delta = (letter: string): number => (was.get(side + letter) ?? 0) - (now.get(side + letter) ?? 0);
    let promoted = 0;
    for (const letter of "NBRQ") promoted += Math.max(0, -delta(letter));
    for (const letter of "PNBRQ") {
      for (let lost = delta(letter) - (letter === "P" ? promoted : 0); lost > 0; lost--) {
        taken[side === "w" ? "black" : "white"].push(letter.toLowerCase());
      }
    }
  }
  return taken;
}

/** The hints for `game`: those its result's `_meta` gave (`given`), and for any it left out, what still holds
 *  of the hints (`known`) the board had for the position it showed before (`from`). */
export function metaFor(given: GameMeta, known: GameMeta, from: GameState | null, game: GameState): GameMeta {
  const same = from?.gameId === game.gameId;
  let carried: GameMeta = known;
  if (!same || from.ply !== game.ply || from.fen !== game.fen) {
    // Moves since the last position the board knew are unseen but the last one; with no such position, all are.
    const after = same && from.ply < game.ply && known.moveHistory?.length === from.ply;
    const seen = after ? (known.moveHistory ?? []) : [];
    const unseen = Math.max(0, game.ply - seen.length - 1);
    const last = game.ply > 0 ? [game.lastMove?.san || UNSEEN] : [];
    // With no earlier position, captures are counted from the usual start (a game from a FEN starts with none).
    const taken = takenBetween(after ? from.fen : game.ply ? START : game.fen, game.fen);
    const base = after ? known.captured : undefined;
    carried = {
      moveHistory: [...seen, ...Array<string>(unseen).fill(UNSEEN), ...last],
      captured: base ? { white: [...base.white, ...taken.white], black: [...base.black, ...taken.black] } : taken,
    };
  }
  return {
    moveHistory: given.moveHistory ?? carried.moveHistory,
    legalMoves: given.legalMoves ?? carried.legalMoves,
    captured: given.captured ?? carried.captured,
  };
}
