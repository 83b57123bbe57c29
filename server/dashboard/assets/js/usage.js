// The Usage page: plan, this month's count against the limit, reset date,
// a per-day chart (counts only; an empty state before the first invoice; the
// values listed when the bars are too narrow to carry them, as on phones),
// and the month's use per API key, revoked keys included.
import { ApiFailure, query } from "/assets/js/api.js";
import { start_billing } from "/assets/js/billing.js";
import { handle_signed_out, start_shell } from "/assets/js/shell.js";
import { start_upgrade } from "/assets/js/upgrade.js";
import { find, show_error } from "/assets/js/ui.js";

const SVG = "http://www.w3.org/2000/svg";
const number = new Intl.NumberFormat();
const month_name = new Intl.DateTimeFormat(undefined, {
  month: "long",
  year: "numeric",
  timeZone: "UTC",
});
const long_date = new Intl.DateTimeFormat(undefined, {
  weekday: "long",
  month: "long",
  day: "numeric",
  year: "numeric",
  timeZone: "UTC",
});

/**
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {string} [text]
 * @returns {SVGElement}
 */
function svg(tag, attributes, text) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, String(value));
  }
  if (text !== undefined) element.textContent = text;
  return element;
}

/**
 * A round upper bound for the axis: 1, 2, 5, 10, 20, 50, …
 * @param {number} value
 * @returns {number}
 */
function nice_max(value) {
  if (value <= 4) return 4;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) {
    if (value <= step * power) return step * power;
  }
  return 10 * power;
}

const day_label = new Intl.DateTimeFormat(undefined, {
  month: "short",
  day: "numeric",
  timeZone: "UTC",
});

/**
 * Lists the days with invoices as text, for widths where the bars are too
 * narrow to carry their values (and for screen readers, always).
 * @param {HTMLElement} list
 * @param {{day: string, count: number}[]} daily
 * @param {boolean} visible
 */
function list_values(list, daily, visible) {
  const used = daily.filter((entry) => entry.count > 0);
  list.replaceChildren(
    ...used.map((entry) => {
      const item = document.createElement("li");
      const day = document.createElement("span");
      day.textContent = day_label.format(new Date(`${entry.day}T00:00:00Z`));
      const count = document.createElement("strong");
      count.textContent = number.format(entry.count);
      item.append(day, " ", count);
      return item;
    }),
  );
  list.classList.toggle("visually-hidden", !visible);
  list.hidden = used.length === 0;
}

/**
 * Draws one bar per day of the month, sized to the chart's width.
 * @param {HTMLElement} container
 * @param {{month: string, daily: {day: string, count: number}[]}} usage
 * @returns {boolean} whether the bars carry their values
 */
function draw_chart(container, usage) {
  const [year, month] = usage.month.split("-").map(Number);
  const days = new Date(Date.UTC(year, month, 0)).getUTCDate();
  const counts = new Array(days).fill(0);
  for (const { day, count } of usage.daily) {
    const index = Number(day.slice(8, 10)) - 1;
    if (index >= 0 && index < days) counts[index] = count;
  }
  const today = new Date().toISOString().slice(0, 7) === usage.month
    ? new Date().getUTCDate() - 1
    : -1;
  const width = Math.max(280, container.clientWidth);
  const height = width < 500 ? 180 : 220;
  const left = 32, right = 4, top = 16, bottom = 24;
  const plot_width = width - left - right;
  const plot_height = height - top - bottom;
  const max = nice_max(Math.max(...counts));
  const slot = plot_width / days;
  const bar = Math.max(2, Math.min(22, slot * 0.62));

  const chart = svg("svg", {
    viewBox: `0 0 ${width} ${height}`,
    width,
    height,
    "aria-hidden": "true",
  });
  for (const fraction of [0, 0.5, 1]) {
    const y = top + plot_height * (1 - fraction);
    chart.append(
      svg("line", {
        class: "grid-line",
        x1: left,
        x2: width - right,
        y1: y,
        y2: y,
      }),
      svg("text", {
        class: "axis-label",
        x: left - 8,
        y: y + 4,
        "text-anchor": "end",
      }, number.format(max * fraction)),
    );
  }
  counts.forEach((count, index) => {
    const x = left + slot * index + (slot - bar) / 2;
    const bar_height = count === 0
      ? 2
      : Math.max(3, (count / max) * plot_height);
    const rect = svg("rect", {
      class: count === 0 ? "bar-empty" : index === today ? "bar-today" : "bar",
      x,
      y: top + plot_height - bar_height,
      width: bar,
      height: bar_height,
      rx: Math.min(3, bar / 3),
    });
    rect.append(
      svg(
        "title",
        {},
        `${usage.month}-${
          String(index + 1).padStart(2, "0")
        }: ${count} invoice${count === 1 ? "" : "s"}`,
      ),
    );
    chart.append(rect);
    if (count > 0 && slot >= 14) {
      chart.append(
        svg("text", {
          class: "bar-value",
          x: x + bar / 2,
          y: top + plot_height - bar_height - 4,
          "text-anchor": "middle",
        }, number.format(count)),
      );
    }
    const day = index + 1;
    if (day === 1 || day % 5 === 0) {
      chart.append(
        svg("text", {
          class: "axis-label",
          x: x + bar / 2,
          y: height - 6,
          "text-anchor": "middle",
        }, String(day)),
      );
    }
  });
  container.replaceChildren(chart);
  return slot >= 14;
}

/**
 * The month's use per key: most used first, revoked keys marked.
 * @param {{id: string, name: string, prefix: string, mode: string, status: string, count: number}[]} keys
 */
function show_by_key(keys) {
  find("[data-by-key-empty]").hidden = keys.length > 0;
  find("[data-by-key-wrap]").hidden = keys.length === 0;
  find("[data-by-key]").replaceChildren(
    ...keys.map((key) => {
      const row = document.createElement("tr");
      row.dataset.keyId = key.id;
      row.classList.toggle("is-revoked", key.status === "revoked");
      const name = document.createElement("td");
      const label = document.createElement("span");
      label.className = "key-name";
      label.textContent = key.name;
      name.append(label);
      if (key.mode === "test") {
        const test = document.createElement("span");
        test.className = "badge badge-test";
        test.textContent = "Test";
        name.append(" ", test);
      }
      const prefix = document.createElement("td");
      prefix.className = "col-prefix";
      const code = document.createElement("code");
      code.className = "key-prefix";
      code.textContent = `${key.prefix}…`;
      prefix.append(code);
      const status = document.createElement("td");
      const badge = document.createElement("span");
      badge.className = `badge badge-${key.status}`;
      badge.textContent = key.status === "revoked" ? "Revoked" : "Active";
      status.append(badge);
      const count = document.createElement("td");
      count.className = "num";
      count.dataset.cell = "count";
      count.textContent = `${number.format(key.count)} ${
        key.mode === "test"
          ? `test document${key.count === 1 ? "" : "s"}`
          : `invoice${key.count === 1 ? "" : "s"}`
      }`;
      row.append(name, prefix, status, count);
      return row;
    }),
  );
}

const session = await start_shell();

const card = document.querySelector(
  `[data-plan="${session.account.plan}"]`,
);
if (card instanceof HTMLElement) {
  card.classList.add("is-current");
  const badge = document.createElement("span");
  badge.className = "plan-current";
  badge.textContent = "Current";
  card.prepend(badge);
  find("[data-current-plan]").textContent = card.dataset.planName ?? "";
  // A price only where this server takes payments (the card carries one).
  const invoices = `${number.format(Number(card.dataset.invoices))} invoices`;
  find("[data-plan-detail]").textContent = card.dataset.price
    ? `$${card.dataset.price} per month · ${invoices}`
    : `${invoices} a month`;
}
if (session.account.subscription_status !== "active") {
  // Say how to reactivate: by paying (billing on) or through the operator.
  const larger = card instanceof HTMLElement && card.nextElementSibling;
  const how = !document.querySelector("[data-upgrade-form]")
    ? "choose a plan below to subscribe again."
    : document.querySelector("[data-upgrade-link]")
    ? "the operator reactivates it: write to the address below."
    : larger
    ? "the operator reactivates it: ask with the form below."
    : "contact the operator of this service to reactivate it.";
  find("[data-plan-detail]").textContent =
    `Subscription inactive: API calls are refused; ${how}`;
}
void start_billing(session.account);
void start_upgrade(session.account);

try {
  const usage = await query("account.usage");
  find("[data-used]").textContent = number.format(usage.used);
  find("[data-limit]").textContent = number.format(usage.limit);
  const share = usage.limit > 0 ? usage.used / usage.limit : 1;
  const meter = find("[data-meter-wrap]");
  find("[data-meter]").style.width = `${Math.min(100, share * 100)}%`;
  meter.classList.toggle("is-high", share >= 0.8 && share < 1);
  meter.classList.toggle("is-full", share >= 1);
  const remaining = find("[data-remaining]");
  remaining.textContent = usage.remaining > 0
    ? `${number.format(usage.remaining)} left this month`
    : "Limit reached: /generate answers 403 until the reset or an upgrade.";
  // Say how to upgrade, where there is a larger plan.
  const larger_plan = card instanceof HTMLElement &&
    card.nextElementSibling !== null;
  if (usage.remaining === 0 && larger_plan) {
    const link = document.createElement("a");
    link.href = "#upgrade";
    link.textContent = document.querySelector("[data-upgrade-form]")
      ? "Ask for an upgrade"
      : "Choose a larger plan";
    remaining.append(" ", link);
  }
  // Test keys: counted apart from the plan, against their own monthly cap.
  find("[data-test-used]").textContent = number.format(usage.test_calls);
  find("[data-test-limit]").textContent = number.format(usage.test_limit);
  find("[data-test-calls-note]").textContent =
    usage.test_calls >= usage.test_limit
      ? "Test documents used up: test keys answer 403 until the reset (live keys are not affected)."
      : "Made with test keys, marked TEST; not counted against the plan.";
  // resets_at is the first instant of next month (UTC).
  const reset = new Date(usage.resets_at);
  find("[data-reset]").textContent = new Intl.DateTimeFormat(undefined, {
    month: "short",
    day: "numeric",
    timeZone: "UTC",
  }).format(reset);
  const days_left = Math.max(
    1,
    Math.ceil((reset.getTime() - Date.now()) / 86_400_000),
  );
  find("[data-reset-detail]").textContent = `In ${days_left} day${
    days_left === 1 ? "" : "s"
  } · 00:00 UTC`;
  find("[data-reset-detail]").title = long_date.format(reset);
  find("[data-month-label]").textContent = month_name.format(
    new Date(`${usage.month}-01T00:00:00Z`),
  );
  const month_text = find("[data-month-label]").textContent ?? "";
  find("[data-by-key-month]").textContent = month_text;
  show_by_key(usage.by_key);
  const chart = find("[data-chart]");
  const values = find("[data-chart-values]");
  const empty = usage.daily.every((/** @type {{count: number}} */ entry) =>
    entry.count === 0
  );
  find("[data-chart-empty]").hidden = !empty;
  chart.classList.toggle("is-empty", empty);
  const draw = () =>
    list_values(values, usage.daily, !draw_chart(chart, usage));
  draw();
  let last_width = chart.clientWidth;
  new ResizeObserver(() => {
    if (chart.clientWidth !== last_width) {
      last_width = chart.clientWidth;
      draw();
    }
  }).observe(chart);
  find("[data-usage]").setAttribute("aria-busy", "false");
} catch (error) {
  if (!handle_signed_out(error)) {
    show_error(
      find("[data-usage-error]"),
      error instanceof ApiFailure ? error.message : "Could not load usage.",
    );
  }
}
