// Pointer handling on the board: a press and release on one square is a click; a press, a move of a few
// pixels and a release elsewhere is a drag (the piece follows the pointer as a floating ghost, and a square it
// may be dropped on is lit while the pointer is over it). The keyboard is handled by the widget (main.ts).

export interface BoardInput {
  canLift(square: string): boolean;
  /** Whether a piece lifted from `from` may be dropped on `to` (a legal move, as far as the widget knows). */
  canDrop(from: string, to: string): boolean;
  click(square: string): void;
  dragStart(square: string): void;
  drop(from: string, to: string | null): void;
}

interface DragState {
  from: string;
  x: number;
  y: number;
  active: boolean;
  ghost: HTMLElement | null;
}

function squareOf(target: EventTarget | null): string | null {
  const node = target instanceof Element ? target.closest<HTMLElement>("[data-square]") : null;
  return node?.dataset.square ?? null;
}

function squareAtPoint(x: number, y: number): string | null {
  for (const node of document.elementsFromPoint(x, y)) {
    const square = squareOf(node);
    if (square) return square;
  }
  return null;
}

export function attachBoardInput(container: HTMLElement, input: BoardInput): void {
  let drag: DragState | null = null;
  let lit: Element | null = null;
  const light = (square: string | null): void => {
    const node = square && drag && input.canDrop(drag.from, square) ? container.querySelector(`[data-square="${square}"]`) : null;
    if (node === lit) return;
    lit?.classList.remove("drop");
    node?.classList.add("drop");
    lit = node;
  };
  const place = (ghost: HTMLElement, x: number, y: number): void => {
    ghost.style.left = `${x}px`;
    ghost.style.top = `${y}px`;
  };
  container.addEventListener("pointerdown", (event) => {
    if (event.button !== 0) return;
    const from = squareOf(event.target);
    if (!from) return;
    event.preventDefault(); // no text selection, no native drag; so the square is focused here, for the keyboard
    (event.target as Element).closest<HTMLElement>("[data-square]")?.focus({ preventScroll: true });
    drag = { from, x: event.clientX, y: event.clientY, active: false, ghost: null };
  });
  window.addEventListener("pointermove", (event) => {
    if (!drag) return;
    if (!drag.active) {
      if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 4 || !input.canLift(drag.from)) return;
      drag.active = true;
      const piece = container.querySelector(`[data-square="${drag.from}"] .piece`);
      input.dragStart(drag.from);
      if (piece) {
        const ghost = piece.cloneNode(true) as HTMLElement;
        ghost.classList.add("ghost");
        ghost.style.fontSize = getComputedStyle(piece).fontSize;
        document.body.appendChild(ghost);
        drag.ghost = ghost;
      }
      container.querySelector(`[data-square="${drag.from}"]`)?.classList.add("lifted");
    }
    if (drag.ghost) place(drag.ghost, event.clientX, event.clientY);
    light(squareAtPoint(event.clientX, event.clientY));
  });
  const finish = (event: PointerEvent, cancelled: boolean): void => {
    if (!drag) return;
    const state = drag;
    light(null);
    drag = null;
    state.ghost?.remove();
    if (cancelled) {
      if (state.active) input.drop(state.from, null);
      return;
    }
    if (state.active) {
      input.drop(state.from, squareAtPoint(event.clientX, event.clientY));
    } else {
      input.click(state.from);
    }
  };
  window.addEventListener("pointerup", (event) => finish(event, false));
  window.addEventListener("pointercancel", (event) => finish(event, true));
}
