// The chess board widget: renders a game from the chess tools' results and plays moves through `chess_move`.

import "../shared/zod-jitless"; // first: before any module builds a zod schema
import "../shared/base.css";
import "./chess.css";
import "./play.css";
import { startWidget, type Host, type ToolResult } from "../shared/bridge";
import { el } from "../shared/dom";
import { failureOf } from "../shared/errors";
import { kingSquare, renderBoard, squaresInOrder } from "./board";
import { parsePlacement, pieceName } from "./fen";
import { parseGame, parseMeta, recentMoves, stateInText, statusText, type GameMeta, type GameState } from "./game";
import { metaFor } from "./carry";
import { chessContext } from "./game";
import { attachBoardInput } from "./interaction";
import { renderGameList } from "./listing";
import { renderPromotionPicker } from "./promotion";
import { describeMoves } from "./speech";
import { renderChessView, type Notice } from "./view";

class ChessWidget {
  private game: GameState | null = null;
  private meta: GameMeta = {};
  private flipped: boolean | null = null;
  private selected: string | null = null;
  private promotion: { from: string; to: string } | null = null;
  private pending = false;
  private notice: Notice | null = null;
  private listing: unknown[] | null = null;
  private rendered = false;
  /** The square in the board's tab order (roving tabindex), where the keyboard focus goes back to. */
  private focusSquare: string | null = null;
  private readonly host: Host;
  private readonly boardWrap = el("div", { class: "wm-board-wrap" });
  /** Polite announcements: moves, the engine's reply, check, the result, what a key press did. */
  private readonly live = el("div", { class: "wm-sr-only", role: "status", "aria-live": "polite", "data-testid": "chess-announcer" });

  constructor(private readonly root: HTMLElement) {
    document.body.appendChild(this.live);
    attachBoardInput(this.boardWrap, {
      canLift: (square) => this.canLift(square),
      canDrop: (from, to) => this.isLegal(from, to),
      click: (square) => this.click(square),
      dragStart: (square) => this.pickUp(square),
      drop: (from, to) => this.drop(from, to),
    });
    this.boardWrap.addEventListener("keydown", (event) => this.key(event));
    this.host = startWidget({
      name: "chess-board",
      onResult: (result) => this.accept(result),
      displayModes: ["inline", "fullscreen"],
    });
    this.host.display.onchange = () => this.render();
    this.render();
  }

  private announce(text: string): void {
    // The same sentence twice is still a change, so it is read again.
    this.live.textContent = this.live.textContent === text ? `${text}\u00a0` : text;
  }

  private accept(result: ToolResult): void {
    const before = this.game;
    const structured = result.structuredContent;
    const failure = failureOf(result, "The move was refused.");
    // A conflict's structuredContent is the current game, also serialized in its text after the sentence (read there
    // when a host hands the widget no structuredContent). Its code is in `_meta.error`, which a host may drop: a
    // failure that carries a game is a conflict whatever code it reads as.
    const game = parseGame(structured) ?? (failure ? parseGame(stateInText(result.content)) : null);
    if (failure) {
      const { code, message } = failure;
      if (game) {
        this.show(game, result._meta);
        this.notice = { kind: "info", code, text: `The game changed elsewhere; the board now shows it. (${message})` };
        this.announce(statusText(game));
        if (!parseMeta(result._meta).legalMoves) void this.refresh();
      } else {
        this.notice = { kind: "error", code, text: message };
      }
    } else if (game) {
      this.show(game, result._meta);
      this.notice = null;
      this.announceChange(before, game);
    } else if (Array.isArray(structured?.games)) {
      this.listing = structured.games;
      this.game = null;
    }
    this.selected = null;
    this.promotion = null;
    this.render();
  }

  private show(game: GameState, meta: unknown): void {
    if (this.game?.gameId !== game.gameId) {
      const saved = this.host.widgetState();
      this.flipped = typeof saved?.flipped === "boolean" ? saved.flipped : null;
    }
    // Hints come with a position: what this result's `_meta` lacks is never taken from another position's.
    this.meta = metaFor(parseMeta(meta), this.meta, this.game, game);
    this.game = game;
    this.listing = null;
  }

  /** What a new result changed, in words: the moves since the last state and where the game stands. */
  private announceChange(before: GameState | null, game: GameState): void {
    const same = before?.gameId === game.gameId;
    if (same && before?.ply === game.ply && before.status === game.status) return; // the same result again
    if (!before || !same || game.ply <= before.ply) {
      this.announce(statusText(game));
      return;
    }
    this.announce(describeMoves(game, recentMoves(game, this.meta.moveHistory, game.ply - before.ply)));
  }

  private get isFlipped(): boolean {
    return this.flipped ?? this.game?.playerColor === "black";
  }

  private canLift(square: string): boolean {
    const game = this.game;
    if (!game || this.pending || game.status !== "active") return false;
    return parsePlacement(game.fen).get(square)?.[0] === game.turn[0];
  }

  private targetsOf(from: string): Set<string> {
    return new Set((this.meta.legalMoves ?? []).filter((m) => m.startsWith(from)).map((m) => m.slice(2, 4)));
  }

  /** Legal as far as the widget knows (`_meta.legalMoves`); without that list the server decides alone. */
  private isLegal(from: string, to: string): boolean {
    const legal = this.meta.legalMoves;
    return from !== to && (!legal || legal.some((m) => m.startsWith(from + to)));
  }

  private pieceOn(square: string): string {
    const piece = this.game ? parsePlacement(this.game.fen).get(square) : undefined;
    return piece ? pieceName(piece) : "piece";
  }

  private pickUp(square: string): void {
    this.selected = square;
    this.focusSquare = square;
    this.promotion = null;
    if (this.notice?.kind === "error") this.notice = null;
    this.render();
    const targets = [...this.targetsOf(square)].sort();
    // Without a list of legal moves for this position the board names none: the server decides.
    const moves = !this.meta.legalMoves ? "" : targets.length ? `, ${targets.length === 1 ? "1 legal move" : `${targets.length} legal moves`}: ${targets.join(", ")}` : ", no legal moves";
    const piece = this.pieceOn(square);
    this.announce(`${piece[0]?.toUpperCase()}${piece.slice(1)} on ${square} picked up${moves}.`);
  }

  private cancel(): void {
    if (!this.selected && !this.promotion) return;
    this.selected = null;
    this.promotion = null;
    this.render();
    this.announce("Move cancelled.");
  }

  /** An illegal move stops here, with the reason shown: nothing is sent to the server. */
  private refuse(from: string, to: string): void {
    const text = `The ${this.pieceOn(from)} on ${from} cannot move to ${to}.`;
    this.selected = null;
    this.notice = { kind: "error", code: "illegal_move", text };
    this.render();
  }

  private click(square: string): void {
    const game = this.game;
    if (!game || this.pending || this.promotion) return;
    this.focusSquare = square;
    if (this.selected === square) return this.cancel();
    if (this.canLift(square)) return this.pickUp(square);
    if (this.selected) return this.isLegal(this.selected, square) ? this.tryMove(this.selected, square) : this.refuse(this.selected, square);
    if (game.status !== "active") return this.announce(statusText(game));
    this.announce(`Pick up a ${game.turn} piece first; ${square} has none.`);
  }

  private drop(from: string, to: string | null): void {
    if (!to || to === from) return this.render();
    this.focusSquare = to;
    if (this.isLegal(from, to)) this.tryMove(from, to);
    else this.refuse(from, to);
  }

  /** Arrow keys move the focus square by square (as the board is drawn), Home/End to the ends of the rank
   *  (with Ctrl, of the board); Enter or Space picks a piece up and puts it down; Escape cancels. */
  private key(event: KeyboardEvent): void {
    const square = event.target instanceof HTMLElement ? event.target.dataset.square : undefined;
    if (!square || this.promotion) return;
    const order = squaresInOrder(this.isFlipped);
    const at = order.indexOf(square);
    const col = at % 8;
    const next = {
      ArrowUp: at >= 8 ? at - 8 : at,
      ArrowDown: at < 56 ? at + 8 : at,
      ArrowLeft: col > 0 ? at - 1 : at,
      ArrowRight: col < 7 ? at + 1 : at,
      Home: event.ctrlKey ? 0 : at - col,
      End: event.ctrlKey ? 63 : at - col + 7,
    }[event.key];
    if (next !== undefined) {
      this.focusOn(order[next] ?? square);
    } else if (event.key === "Enter" || event.key === " ") {
      this.click(square);
    } else if (event.key === "Escape" && this.selected) {
      this.cancel();
    } else {
      return;
    }
    event.preventDefault();
  }

  private focusOn(square: string): void {
    const board = this.boardWrap.querySelector(".wm-board");
    const node = board?.querySelector<HTMLElement>(`[data-square="${square}"]`);
    if (!board || !node) return;
    board.querySelector('[tabindex="0"]')?.setAttribute("tabindex", "-1");
    node.tabIndex = 0;
    node.focus();
    this.focusSquare = square;
  }

  private needsPromotion(from: string, to: string): boolean {
    const legal = this.meta.legalMoves;
    if (legal) return legal.some((m) => m.length === 5 && m.startsWith(from + to));
    const piece = this.game ? parsePlacement(this.game.fen).get(from) : undefined;
    return piece?.[1] === "P" && (to[1] === "8" || to[1] === "1");
  }

  private tryMove(from: string, to: string): void {
    if (this.needsPromotion(from, to)) {
      this.selected = from;
      this.promotion = { from, to };
      this.render();
      this.boardWrap.querySelector<HTMLElement>(".wm-promotion button")?.focus();
      return;
    }
    void this.move(from, to);
  }

  private async move(from: string, to: string, promotion?: string): Promise<void> {
    const game = this.game;
    if (!game) return;
    const args: Record<string, unknown> = { gameId: game.gameId, from, to, expectedPly: game.ply };
    if (promotion) args.promotion = promotion;
    this.pending = true;
    this.selected = null;
    this.promotion = null;
    this.focusSquare = to;
    this.render();
    try {
      const result = await this.host.callTool("chess_move", args);
      this.pending = false;
      this.accept(result);
      // The model saw the game as it was before this move (and the engine's reply): tell it the new position.
      if (!result.isError && this.game) this.host.updateModelContext(chessContext(this.game, this.meta.moveHistory, game.ply));
    } catch (error) {
      this.pending = false;
      this.notice = { kind: "error", text: `The move could not be sent: ${String(error)}` };
      this.render();
    }
  }

  private async refresh(): Promise<void> {
    if (!this.game) return;
    try {
      const result = await this.host.callTool("chess_show_game", { gameId: this.game.gameId });
      const game = parseGame(result.structuredContent);
      if (!result.isError && game) {
        this.show(game, result._meta);
        this.render();
      }
    } catch {
      // The board already shows the conflict's state; hints come back with the next result.
    }
  }

  private flip(): void {
    this.flipped = !this.isFlipped;
    this.host.setWidgetState({ ...(this.host.widgetState() ?? {}), flipped: this.flipped });
    this.render();
    this.announce(`Board flipped: ${this.flipped ? "black" : "white"} at the bottom.`);
  }

  /** A follow-up message in the conversation about the position on the board (ui/message or sendFollowUpMessage). */
  private async ask(): Promise<void> {
    const game = this.game;
    if (!game) return;
    const last = game.lastMove?.san ? ` after ${game.lastMove.san}` : "";
    try {
      await this.host.sendMessage(`What do you think of chess game ${game.gameId}${last}? (FEN ${game.fen})`);
    } catch (error) {
      this.notice = { kind: "error", text: `The message could not be sent: ${String(error)}` };
      this.render();
    }
  }

  private render(): void {
    const game = this.game;
    const root = this.root;
    // Focus inside the board (a square or the picker) comes back to the same place after the redraw, as does
    // focus on a button of the head (the fullscreen toggle redraws the widget under it).
    const focused = this.boardWrap.contains(document.activeElement);
    const button = document.activeElement instanceof HTMLButtonElement ? document.activeElement.dataset.testid : undefined;
    root.replaceChildren();
    if (this.listing) {
      root.appendChild(renderGameList(this.listing, (gameId) => this.open(gameId)));
      return;
    }
    if (!game) {
      root.appendChild(el("p", { class: "wm-muted", "data-testid": "chess-status" }, "Waiting for a game…"));
      if (this.notice) root.appendChild(el("p", { class: "wm-error", role: "alert" }, this.notice.text));
      return;
    }
    const flipped = this.isFlipped;
    const selected = this.selected;
    const order = squaresInOrder(flipped);
    const focus = this.focusSquare && order.includes(this.focusSquare) ? this.focusSquare : (order[56] ?? "a1");
    const board = renderBoard({
      fen: game.fen,
      flipped,
      lastMove: game.lastMove,
      checkSquare: game.check ? kingSquare(game.fen, game.turn) : null,
      selected,
      targets: selected ? this.targetsOf(selected) : undefined,
      focus,
    });
    this.boardWrap.replaceChildren(board);
    if (this.promotion) {
      const { from, to } = this.promotion;
      board.inert = true; // with the picker's own Tab handling, the focus stays in the picker while it is open
      this.boardWrap.appendChild(
        renderPromotionPicker(game.turn, (piece) => {
          if (piece) return void this.move(from, to, piece);
          this.focusSquare = from;
          this.cancel();
        }),
      );
    }
    const widget = renderChessView(this.host, {
      game,
      meta: this.meta,
      flipped,
      pending: this.pending,
      notice: this.notice,
      boardWrap: this.boardWrap,
      flip: () => this.flip(),
      ask: () => void this.ask(),
      displayFailed: (error) => {
        this.notice = { kind: "error", text: `The display could not be changed: ${String(error)}` };
        this.render();
      },
    });
    if (!this.rendered) {
      this.rendered = true;
      performance.mark("wm:first-board"); // read by bench/widgets.py (first render after the frame loaded)
    }
    root.appendChild(widget);
    if (focused) {
      const target = this.promotion ? this.boardWrap.querySelector<HTMLElement>(".wm-promotion button") : null;
      (target ?? board.querySelector<HTMLElement>('[tabindex="0"]'))?.focus();
    }
    if (button) widget.querySelector<HTMLElement>(`button[data-testid="${button}"]`)?.focus();
  }

  private open(gameId: string): void {
    void this.host.callTool("chess_show_game", { gameId }).then((result) => this.accept(result));
  }
}

const root = document.getElementById("root");
if (root) new ChessWidget(root);
