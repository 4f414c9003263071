import { useLayoutEffect, useRef, useState } from 'react';
import { TableWrap } from '../ui/TableWrap';

interface Day {
  date: string;
  sessions: number;
  organisations: number;
  pageviews: number;
}

const PAD = { top: 12, right: 8, bottom: 26, left: 40 };

const short = (date: string) =>
  new Date(`${date}T00:00:00Z`).toLocaleDateString('en', {
    month: 'short',
    day: 'numeric',
    timeZone: 'UTC',
  });

/** A nice round top for the axis: 1, 2 or 5 times a power of ten. */
function ceiling(max: number): number {
  if (max <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(max));
  const step = [1, 2, 5, 10].find((m) => m * power >= max / 4) ?? 10;
  return Math.ceil(max / (step * power)) * step * power;
}

/**
 * Sessions per day as bars and organisations per day as a line, in plain SVG (no chart
 * library: a few hundred bytes instead of tens of kilobytes). The figure's table is its text
 * alternative, one click away for everyone.
 */
export function VisitsChart({ days }: { days: Day[] }) {
  // Drawn at the width it is shown at, so its text stays legible on a phone.
  const box = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(760);
  useLayoutEffect(() => {
    const element = box.current;
    if (!element) return;
    const observer = new ResizeObserver(([entry]) => {
      const shown = Math.round(entry?.contentRect.width ?? 0);
      if (shown > 0) setWidth(shown);
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  const height = width < 520 ? 180 : 220;
  const top = ceiling(Math.max(1, ...days.map((d) => Math.max(d.sessions, d.organisations))));
  const innerW = width - PAD.left - PAD.right;
  const innerH = height - PAD.top - PAD.bottom;
  const step = innerW / Math.max(1, days.length);
  const y = (value: number) => PAD.top + innerH - (value / top) * innerH;
  const x = (index: number) => PAD.left + step * index + step / 2;
  const ticks = [0, top / 4, top / 2, (3 * top) / 4, top];
  const labelEvery = Math.max(1, Math.ceil(days.length / Math.max(2, Math.floor(innerW / 64))));
  const totals = days.reduce(
    (sum, d) => ({ sessions: sum.sessions + d.sessions, pageviews: sum.pageviews + d.pageviews }),
    { sessions: 0, pageviews: 0 },
  );
  const busiest = days.reduce<Day | undefined>(
    (best, d) => (!best || d.sessions > best.sessions ? d : best),
    undefined,
  );
  const summary = `${totals.sessions.toLocaleString('en')} sessions over ${days.length} days${
    busiest && busiest.sessions > 0
      ? `, most on ${short(busiest.date)} (${busiest.sessions.toLocaleString('en')})`
      : ''
  }.`;

  return (
    <figure className="card chart" aria-labelledby="visits-title">
      <figcaption className="chart-head">
        <h2 id="visits-title">Visits per day</h2>
        <span className="legend">
          <span className="key key-sessions" aria-hidden="true" /> Sessions
          <span className="key key-organisations" aria-hidden="true" /> Organisations
        </span>
      </figcaption>
      <div ref={box} className="chart-box">
        <svg
          viewBox={`0 0 ${width} ${height}`}
          role="img"
          aria-label={`Visits per day: ${summary}`}
        >
          {ticks.map((tick) => (
            <g key={tick}>
              <line
                x1={PAD.left}
                x2={width - PAD.right}
                y1={y(tick)}
                y2={y(tick)}
                className="grid-line"
              />
              <text x={PAD.left - 6} y={y(tick) + 4} textAnchor="end" className="axis">
                {tick.toLocaleString('en')}
              </text>
            </g>
          ))}
          {days.map((d, i) => (
            <rect
              key={d.date}
              x={x(i) - Math.max(1, step * 0.32)}
              width={Math.max(2, step * 0.64)}
              y={y(d.sessions)}
              height={Math.max(0, PAD.top + innerH - y(d.sessions))}
              rx={2}
              className="bar"
            >
              <title>
                {short(d.date)}: {d.sessions} sessions, {d.organisations} organisations
              </title>
            </rect>
          ))}
          <polyline
            className="line"
            points={days.map((d, i) => `${x(i)},${y(d.organisations)}`).join(' ')}
          />
          {days.map((d, i) =>
            i % labelEvery === 0 ? (
              <text key={d.date} x={x(i)} y={height - 8} textAnchor="middle" className="axis">
                {short(d.date)}
              </text>
            ) : null,
          )}
        </svg>
      </div>
      <details>
        <summary>Show the numbers</summary>
        <TableWrap label="Visits per day, as numbers">
          <table>
            <caption className="visually-hidden">Visits per day</caption>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col" className="num">
                  Sessions
                </th>
                <th scope="col" className="num">
                  Organisations
                </th>
                <th scope="col" className="num">
                  Page views
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((d) => (
                <tr key={d.date}>
                  <th scope="row">{d.date}</th>
                  <td className="num">{d.sessions.toLocaleString('en')}</td>
                  <td className="num">{d.organisations.toLocaleString('en')}</td>
                  <td className="num">{d.pageviews.toLocaleString('en')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  );
}
