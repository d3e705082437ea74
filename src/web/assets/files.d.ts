// Stylesheets are embedded as text (src/web/assets.ts imports them `with { type: "text" }`).
declare module "*.css" {
  const text: string;
  export default text;
}
