import type { ClientQuirk } from './types';

/** Quirks of single values that several clients share, handled by the contract DSL itself (dsl/validate.ts). */
export const valueQuirks: readonly ClientQuirk[] = [
  {
    rule: 'empty_enum',
    sends: '`""` for an enum field it has no value for (gender, account_type, stock_status, currency, …)',
    becomes: 'the field is treated as absent (an optional field is left out; a required one is still `required`)',
    clients: 'causalfoundry/ios-sdk 0.9.5–1.2.3 (catalog and item defaults)',
    source: 'CausalFoundrySDKCore Models/Catalog/UserCatalogModel.swift, KenkaiSDKEcom ItemModel.swift (1.x)',
    gate: [{ line: 'ios-cf', from: '0.9.5', to: '1.2.3' }],
    otherwise: 'enum',
  },
  {
    rule: 'enum_alias',
    sends: 'its own spelling of a spec value, e.g. module_selection `appointments` for `appointment`',
    becomes: 'the spec value',
    clients:
      'causalfoundry/ios-sdk 1.2.2–1.2.3 and Kenkai 1.0.0–1.0.1; benshi-ai/open-synthetic-data-generator 9adc0d6 (rate `type` drug, blood, oxygen, medical_equipment → item)',
    source: 'ModuleType.swift; generator utils/event_utils.py',
    gate: [{ line: 'ios-cf', from: '1.2.2', to: '1.2.3' }, 'ios-kenkai', 'server-import'],
    otherwise: 'enum',
  },
  {
    rule: 'enum_spelling',
    sends: 'a spec value in another case or in camelCase (`View`, `medicalEquipment`)',
    becomes: 'the spec value (snake_case, lower case)',
    clients: 'causalfoundry/ios-sdk 0.4.3–0.5.3',
    source: 'MediaAction.swift, SearchItemType.swift (0.4.x)',
    gate: [{ line: 'ios-cf', from: '0.4.3', to: '0.5.3' }],
    otherwise: 'enum',
  },
  {
    rule: 'enum_extension',
    sends: 'a value its own enum has and the spec list lacks (e.g. `other` for several actions, gender `undisclosed`)',
    becomes: 'kept as sent',
    clients: 'causalfoundry/ios-sdk (all lines), causalfoundry/unity-sdk 1.0.10',
    source: 'EventTypes/*.swift',
    gate: ['ios-cf', 'ios-kenkai', 'unity-ios'],
    otherwise: 'enum',
  },
  {
    rule: 'currency_code_ios_list',
    sends:
      'a currency code of its own list that is not an active ISO 4217 code (GGP, IMP, JEP, SPL, TVD; withdrawn ANG, BGN, BYR, CUC, HRK, MRO, SLL, STD, VEF, ZWD)',
    becomes: 'kept as sent',
    clients: 'causalfoundry/ios-sdk 0.4.3–1.2.3 and Kenkai 1.0.0–1.0.1',
    source: 'EventTypes/CurrencyCode.swift',
    gate: ['ios-cf', 'ios-kenkai'],
    otherwise: 'currency_code',
  },
  {
    rule: 'redeem_currency_empty',
    sends: 'redeem `currency: ""` when the app gives none',
    becomes: 'the currency is treated as absent',
    clients: 'causalfoundry/ios-sdk 1.2.3 and Kenkai 1.0.0–1.0.1 (flattened as `redeem_currency`)',
    source:
      'CausalFoundrySDKLoyalty Models/RedeemObject.swift (`currency?.rawValue ?? ""`); KenkaiSDKLoyalty Models/RewardEventObject.swift:45 (`redeemCurrency?.rawValue ?? ""`, at tag 1.0.1)',
    gate: [{ line: 'ios-cf', from: '1.2.3', to: '1.2.3' }, 'ios-kenkai'],
    otherwise: 'currency_code',
  },
  {
    rule: 'total_points_zero_default',
    sends: 'reward `total_points: 0` (its default) below `acc_points` when the app gives no total',
    becomes: 'kept as sent; the total is unknown',
    clients: 'causalfoundry/ios-sdk 1.2.3 and Kenkai 1.0.0–1.0.1',
    source: 'RewardEventObject.swift (`totalPoints: Float = 0.0`)',
    gate: [{ line: 'ios-cf', from: '1.2.3', to: '1.2.3' }, 'ios-kenkai'],
    otherwise: 'total_points_below_acc_points',
  },
];
