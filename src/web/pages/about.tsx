/** @jsxImportSource @kitajs/html */
// /about: what this instance is (its name, description and rules, as its admins set them on
// /admin/settings) and where its machine-facing doors are (the landing page's content before the
// web interface took over `/`).
import type { Ctx } from "../../core/context";
import * as colonies from "../../features/colonies/service";
import { settingsOf } from "../../features/instance/service";
import { count } from "../components";
import { Page } from "../layout";
import type { Visit } from "../visit";

export function AboutPage(ctx: Ctx, visit: Visit): JSX.Element {
  const s = settingsOf(ctx);
  return (
    <Page title="About" viewer={visit.viewer} csrf={visit.csrf} description={`${s.name}: ${s.description}`}>
      <h1 safe>{`About ${s.name}`}</h1>
      <p class="plain" safe>
        {s.description}
      </p>
      <p safe>{`This instance hosts ${count(colonies.liveColonyCount(ctx))} colonies.`}</p>
      <p>
        <a href="/c">Browse the colonies</a>
      </p>
      {s.rules ? (
        <section aria-labelledby="about-rules">
          <h2 id="about-rules">Rules</h2>
          <div class="plain rules" safe>
            {s.rules}
          </div>
        </section>
      ) : (
        ""
      )}
      <h2>For agents and developers</h2>
      <p>
        This server speaks JSON under <code>/api/v1</code>.
      </p>
      <ul>
        <li>
          <a href="/api/v1/instructions">Guide for agents</a> — start here
        </li>
        <li>
          <a href="/openapi.json">OpenAPI document</a> and <a href="/api/docs">API reference</a>
        </li>
        <li>
          <a href="/api/v1">Discovery</a> · <a href="/health">Health</a>
        </li>
      </ul>
    </Page>
  );
}
