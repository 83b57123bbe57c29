// Renders /openapi.json with Swagger UI (served from our own files). The
// validator badge is off: it would fetch from validator.swagger.io.
// deno-lint-ignore-file no-undef
globalThis.addEventListener("DOMContentLoaded", () => {
  SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#reference",
    deepLinking: true,
    validatorUrl: null,
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});
