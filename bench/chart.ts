/** A small SVG bar chart of benchmark ratios (no dependency: the figures are few and fixed). */
export interface Bar {
  label: string;
  value: number;
  caption: string;
}

export function barChart(title: string, groups: { name: string; bars: Bar[] }[]): string {
  const rowHeight = 26;
  const left = 260;
  const width = 880;
  const scale = (width - left - 280) / Math.max(...groups.flatMap((g) => g.bars.map((b) => b.value)), 1e-9);
  const rows: string[] = [];
  let y = 50;
  for (const group of groups) {
    rows.push(`<text x="10" y="${y}" font-weight="bold">${escape(group.name)}</text>`);
    y += 10;
    for (const bar of group.bars) {
      const w = Math.max(1, bar.value * scale);
      rows.push(
        `<text x="20" y="${y + 17}">${escape(bar.label)}</text>`,
        `<rect x="${left}" y="${y + 4}" width="${w.toFixed(1)}" height="${rowHeight - 8}" fill="${bar.label.startsWith('baseline') ? '#9aa5b1' : '#2f6fde'}"/>`,
        `<text x="${(left + w + 6).toFixed(1)}" y="${y + 17}">${escape(bar.caption)}</text>`,
      );
      y += rowHeight;
    }
    y += 24;
  }
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${y}" font-family="sans-serif" font-size="13">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="24" font-size="16" font-weight="bold">${escape(title)}</text>`,
    ...rows,
    '</svg>',
    '',
  ].join('\n');
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
