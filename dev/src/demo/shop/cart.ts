import type { CartProps, CheckoutProps } from '@evp/web-sdk';
import type { ShopDrug } from '../drugs';

/** The shop's currency (ISO 4217). */
export const CURRENCY = 'KES';

export interface CartLine {
  id: string;
  name: string;
  price: number;
  quantity: number;
}

export interface Cart {
  id: string;
  items: CartLine[];
}

export const newCart = (now = Date.now()): Cart => ({ id: `cart-${now.toString(36)}`, items: [] });

export const cartTotal = (cart: Cart): number => cart.items.reduce((s, i) => s + i.price * i.quantity, 0);
export const cartCount = (cart: Cart): number => cart.items.reduce((n, i) => n + i.quantity, 0);

/** A line as the e-commerce block's item. */
const cartItem = (i: Pick<CartLine, 'id' | 'price' | 'quantity'>): CartProps['item'] => ({
  id: i.id,
  type: 'drug',
  quantity: i.quantity,
  price: i.price,
  currency: CURRENCY,
});

/** Adds one of a drug (a new line, or one more on its line) and returns the `cart` event's props. */
export function addToCart(cart: Cart, d: ShopDrug): CartProps {
  const line = cart.items.find((i) => i.id === d.id);
  if (line) line.quantity += 1;
  else cart.items.push({ id: d.id, name: d.name, price: d.price, quantity: 1 });
  return { id: cart.id, action: 'add_item', cart_price: cartTotal(cart), currency: CURRENCY, item: cartItem({ id: d.id, price: d.price, quantity: 1 }) };
}

/** Removes a drug's line and returns the `cart` event's props, or undefined when the cart has none. */
export function removeFromCart(cart: Cart, id: string): CartProps | undefined {
  const line = cart.items.find((i) => i.id === id);
  if (!line) return undefined;
  cart.items = cart.items.filter((i) => i.id !== id);
  return { id: cart.id, action: 'remove_item', cart_price: cartTotal(cart), currency: CURRENCY, item: cartItem(line) };
}

/** The `checkout` event's props of a (non-empty) cart, as the shop sends it: picked up at the pharmacy, paid. */
export const checkoutOf = (cart: Cart, now = Date.now()): CheckoutProps => ({
  id: `order-${now.toString(36)}`,
  cart_id: cart.id,
  cart_price: cartTotal(cart),
  currency: CURRENCY,
  shop_mode: 'pickup',
  items: cart.items.map(cartItem),
  is_successful: true,
});

/** The user id of a signed-in name: `shopper-` and the name in lower case, other characters as dashes. */
export const userId = (name: string): string =>
  `shopper-${name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')}`;
