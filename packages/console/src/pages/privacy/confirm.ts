/// <reference lib="dom" />
import { byId } from '../../shell';

/**
 * A form whose submit asks first: `question` names what will happen (how many ids, which user),
 * shown as text in `#<name>-confirm`; its yes button runs `act`, its cancel hides it. Erasure and
 * lifting cannot be undone by the page, so one click never does them.
 */
export function confirmed(name: string, question: () => string | undefined, act: () => Promise<void>): void {
  const box = byId(`${name}-confirm`);
  byId(`${name}-form`).addEventListener('submit', (ev) => {
    ev.preventDefault();
    const q = question();
    box.hidden = q === undefined;
    byId(`${name}-question`).textContent = q ?? '';
  });
  byId(`${name}-no`).addEventListener('click', () => (box.hidden = true));
  byId(`${name}-yes`).addEventListener('click', () => {
    box.hidden = true;
    void act();
  });
}
