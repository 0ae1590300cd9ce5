/**
 * ISO 4217 active currency codes ("list one" of the ISO 4217 maintenance agency, SIX): the codes of
 * the list published 2024-06-25 (as shipped in the `currency-codes` npm package 2.2.0), updated with
 * the amendments in force by the list published 2026-09-17: XCG (Caribbean guilder, 2025) and XAD
 * (Arab accounting dinar) added; ANG (replaced by XCG), CUC (withdrawn by Cuba) and BGN (Bulgaria
 * joined the euro on 2026-01-01) withdrawn. Fund codes (BOV, CHE, CHW, CLF, COU, MXV, USN, UYI, UYW),
 * precious metals, bond units, SDR and the testing/no-currency codes (XTS, XXX) are on list one too,
 * so they are accepted. Keep this list in step with list one when ISO publishes an amendment.
 */
export const ISO_4217_ACTIVE: ReadonlySet<string> = new Set(
  `AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BHD BIF BMD BND BOB BOV BRL BSD
   BTN BWP BYN BZD CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK
   DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF
   IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP
   LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD
   NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD
   SCR SDG SEK SGD SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD
   TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV WST XAD XAF XAG XAU XBA
   XBB XBC XBD XCD XCG XDR XOF XPD XPF XPT XSU XTS XUA XXX YER ZAR ZMW ZWG`
    .trim()
    .split(/\s+/),
);
