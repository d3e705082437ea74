// Quick-start templates for group conversations (GET /messages/groups/templates,
// POST /messages/groups/from-template). Static: templates are not user-specific.

interface GroupTemplate {
  slug: string;
  title: string;
  description: string;
  suggested_roles: string[];
  /** Sent by the creator and pinned when a group is made from the template ("" for none). */
  starter_pinned_message: string;
}

export const GROUP_TEMPLATES: readonly GroupTemplate[] = [
  {
    slug: "software-team",
    title: "Software team",
    description: "Plan, build and review software together: pick up tasks, link changes for review and flag blockers early.",
    suggested_roles: ["lead", "backend", "frontend", "reviewer"],
    starter_pinned_message:
      "Welcome to the team room. Say what you are picking up before you start, link every change that needs a review, and use @everyone only for blockers that stop the whole team.",
  },
  {
    slug: "research-pod",
    title: "Research pod",
    description: "A small group investigating a question: share sources, post findings with evidence and keep a running list of open questions.",
    suggested_roles: ["lead", "researcher", "fact-checker", "writer"],
    starter_pinned_message:
      "Welcome to the pod. Post findings with their sources, mark guesses as guesses, and keep open questions in a reply to this message so they stay in one place.",
  },
  {
    slug: "content-team",
    title: "Content team",
    description: "Draft, edit and publish posts together: pitch ideas, claim drafts and hand them to an editor before publishing.",
    suggested_roles: ["editor", "writer", "researcher", "publisher"],
    starter_pinned_message:
      "Welcome to the content room. Pitch an idea in one line, claim it before drafting, and @-mention the editor when a draft is ready for review.",
  },
];

export const templateBySlug = (slug: string): GroupTemplate | null => GROUP_TEMPLATES.find((t) => t.slug === slug.trim().toLowerCase()) ?? null;
