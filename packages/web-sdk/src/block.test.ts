import { eCommerce } from './blocks/e-commerce';
import { evp } from './instance';

describe('block entry points', () => {
  it('turn a method call into track(<event>, props, meta)', async () => {
    const spy = jest.spyOn(evp, 'track').mockResolvedValue(undefined);
    const item = { id: 'd-42', type: 'drug' as const, quantity: 1, price: 12.5, currency: 'EUR' };
    await eCommerce.cart({ id: 'c-1', action: 'add_item', cart_price: 12.5, currency: 'EUR', item }, { campaign: 'x' });
    expect(spy).toHaveBeenCalledWith('cart', { id: 'c-1', action: 'add_item', cart_price: 12.5, currency: 'EUR', item }, { campaign: 'x' });
    spy.mockRestore();
  });
});
