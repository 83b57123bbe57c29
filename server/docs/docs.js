// Renders /openapi.json with Swagger UI (served from our own files). The
// validator badge is off: it would fetch from validator.swagger.io.
// Accessibility: no deep links (Swagger UI puts their anchors inside the
// operation's toggle button, a control inside a control), a highlighting
// theme whose colours keep 4.5:1 contrast, and names for the controls
// Swagger UI leaves unnamed (see `name_controls`).
// deno-lint-ignore-file no-undef
globalThis.addEventListener("DOMContentLoaded", () => {
  SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#reference",
    deepLinking: false,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    syntaxHighlight: { activated: true, theme: "obsidian" },
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
  name_controls(document.getElementById("reference"));
});

/** Names for the controls Swagger UI renders without one, by what they are. */
const UNNAMED = [
  { selector: ".servers select", name: "Server" },
  { selector: "select.examples-select-element", name: "Example" },
  { selector: ".content-type-wrapper select", name: "Media type" },
  { selector: "select", name: "Choice" },
  { selector: ".body-param textarea", name: "Request body" },
  { selector: "textarea", name: "Value" },
  { selector: "button.close-modal", name: "Close" },
];

/**
 * Swagger UI renders its server and example choosers, the request body
 * field and the dialog's close button without a name, and request examples
 * as scrollable boxes keyboards cannot reach: as it renders, each gets a
 * name, and each such box a tab stop. Names Swagger UI gives are kept.
 * @param {HTMLElement | null} root
 */
function name_controls(root) {
  if (!root) return;
  const fix = () => {
    for (const { selector, name } of UNNAMED) {
      for (const control of root.querySelectorAll(selector)) {
        // A label counts only with words of its own (Swagger UI wraps the
        // server chooser in an empty one).
        const labelled = [...(control.labels ?? [])].some((label) =>
          [...label.childNodes].some((node) =>
            node.nodeType === Node.TEXT_NODE && node.textContent?.trim()
          )
        );
        if (control.hasAttribute("aria-label") || labelled) continue;
        control.setAttribute("aria-label", name);
      }
    }
    for (const box of root.querySelectorAll("pre:not([tabindex])")) {
      box.setAttribute("tabindex", "0");
    }
  };
  new MutationObserver(fix).observe(root, { childList: true, subtree: true });
  fix();
}
