// market.js is embedded as text (src/web/market-assets.ts imports it `with { type: "text" }`).
declare const text: string;
export default text;
