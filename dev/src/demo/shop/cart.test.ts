import { addToCart, cartCount, cartTotal, checkoutOf, newCart, removeFromCart, userId } from './cart';

const drug = (id: string, price: number) => ({ id, name: `Drug ${id}`, form: 'tablet', strength: '1 mg', price });

describe('the demo shop’s cart', () => {
  it('adds a drug as a line or one more on its line, and says the cart event of each change', () => {
    const cart = newCart(Date.UTC(2026, 0, 1));
    expect(cart).toEqual({ id: `cart-${Date.UTC(2026, 0, 1).toString(36)}`, items: [] });
    addToCart(cart, drug('D-2', 120));
    expect(addToCart(cart, drug('D-2', 120))).toEqual({
      id: cart.id,
      action: 'add_item',
      cart_price: 240,
      currency: 'KES',
      item: { id: 'D-2', type: 'drug', quantity: 1, price: 120, currency: 'KES' },
    });
    addToCart(cart, drug('D-4', 60));
    expect([cartCount(cart), cartTotal(cart)]).toEqual([3, 300]);
    expect(removeFromCart(cart, 'D-2')).toEqual({
      id: cart.id,
      action: 'remove_item',
      cart_price: 60,
      currency: 'KES',
      item: { id: 'D-2', type: 'drug', quantity: 2, price: 120, currency: 'KES' },
    });
    expect(removeFromCart(cart, 'D-2')).toBeUndefined();
  });

  it('checks out every line, picked up and paid', () => {
    const cart = newCart(1);
    addToCart(cart, drug('D-1', 450));
    expect(checkoutOf(cart, 36)).toEqual({
      id: 'order-10',
      cart_id: 'cart-1',
      cart_price: 450,
      currency: 'KES',
      shop_mode: 'pickup',
      items: [{ id: 'D-1', type: 'drug', quantity: 1, price: 450, currency: 'KES' }],
      is_successful: true,
    });
  });

  it('makes a user id of a name', () => {
    expect([userId(' Amina '), userId('Jean-Luc Picard!')]).toEqual(['shopper-amina', 'shopper-jean-luc-picard-']);
  });
});
