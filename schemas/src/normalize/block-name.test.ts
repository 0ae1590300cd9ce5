import { normalizeBlockName } from './block-name';

describe('normalizeBlockName', () => {
  it.each([
    ['e-commerce', 'e_commerce'],
    ['e-learning', 'e_learning'],
    ['patient-mgmt', 'patient_mgmt'],
  ])('reads %s as %s with a block_spelling warning', (sent, block) => {
    expect(normalizeBlockName(sent, '$.data[0].block')).toEqual({
      block,
      warning: { path: '$.data[0].block', rule: 'block_spelling', message: `block "${sent}" read as ${block}` },
    });
  });

  it('returns block names and unknown names as sent, without a warning', () => {
    for (const sent of ['e_commerce', 'core', 'e-shop', 'E-Commerce', '']) expect(normalizeBlockName(sent, '$')).toEqual({ block: sent });
  });
});
