import type { PlatformInfo } from '../connectors/registry.js';

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A simple square logo (the platform's initial on its colour), so the service ships no image files. */
export function platformLogoSvg(platform: PlatformInfo): string {
  const initial = escapeXml(platform.name.slice(0, 1).toUpperCase());
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 64 64" role="img" aria-label="${escapeXml(platform.name)}">` +
    `<rect width="64" height="64" rx="12" fill="${platform.brandColour}"/>` +
    `<text x="32" y="43" font-family="system-ui, sans-serif" font-size="30" font-weight="700" fill="#fff" text-anchor="middle">${initial}</text></svg>`
  );
}
