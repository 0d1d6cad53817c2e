/**
 * Simplify, run through n8n's workflow engine against the sandbox: off by
 * default (the full API records that the E2E tests, examples and benchmarks
 * read), and when on, each record reduced to the documented fields, in order.
 */
import { nodeType, runNode } from "../support/host/action-node.cjs";
import { api, control, newConversation } from "../support/sandbox.cjs";
import type { Json } from "../support/sandbox.cjs";
import { byId, useSandbox } from "../support/suite.cjs";

const suite = useSandbox();

/**
 * The simplified shapes other engineers rely on. They keep every field the
 * files in examples/, test/ and bench/ read from the node's output.
 */
const SIMPLIFIED = {
  contact: [
    "id",
    "name",
    "email",
    "phone",
    "company",
    "lead_status",
    "lead_source",
    "updated_at",
  ],
  conversation: ["id", "channel", "status", "customer_id", "updated_at"],
  message: [
    "id",
    "conversation_id",
    "channel",
    "message_type",
    "content",
    "from_customer",
    "from_user_id",
    "send_state",
    "created_at",
    "updated_at",
  ],
};

/** `record` reduced to `fields`, in the order of `fields`. */
const simplified = (record: Json, fields: string[]): Json =>
  Object.fromEntries(
    fields
      .filter((field) => record[field] !== undefined)
      .map((field) => [field, record[field]]),
  );

const run = async (resource: string, operation: string, parameters: Json) =>
  await runNode({
    credentials: suite.credentials,
    parameters: { resource, operation, ...parameters },
  });

async function newContact(): Promise<Json> {
  return await api(suite.sb, "POST", "/contacts", {
    name: `Simplify ${Date.now()} ${Math.random().toString(36).slice(2, 8)}`,
    email: "simplify@example.com",
    phone: "+49 30 1234567",
    company: "Simplify GmbH",
    job_title: "Buyer",
    lead_status: "new",
    lead_source: "Website",
    city: "Berlin",
    country: "Germany",
    address: "Alexanderplatz 1",
  });
}

describe("Contact", () => {
  test("Get: raw by default, the simplified fields in order when on", async () => {
    const contact = await newContact();
    const raw = await run("contact", "get", { contactId: byId(contact.id) });
    expect(raw.json).toEqual([contact]);

    const simple = await run("contact", "get", {
      contactId: byId(contact.id),
      simplify: true,
    });
    expect(simple.json).toEqual([simplified(contact, SIMPLIFIED.contact)]);
    expect(Object.keys(simple.json[0])).toEqual(SIMPLIFIED.contact);
    expect(simple.items[0].pairedItem).toEqual({ item: 0 });
  });

  test("Get Many: each record simplified, same records and order as raw", async () => {
    const first = await newContact();
    const second = await newContact();
    const search = { returnAll: true, filters: { search: "Simplify GmbH" } };
    const raw = await run("contact", "getAll", search);
    expect(raw.json.map((contact) => contact.id)).toEqual(
      expect.arrayContaining([first.id, second.id]),
    );
    expect(
      raw.json.every(
        (contact) => "app_id" in contact && "job_title" in contact,
      ),
    ).toBe(true);

    const simple = await run("contact", "getAll", {
      ...search,
      simplify: true,
    });
    expect(simple.json).toEqual(
      raw.json.map((contact) => simplified(contact, SIMPLIFIED.contact)),
    );
  });

  test("Create, Update and Merge output the simplified contact when on", async () => {
    const created = await run("contact", "create", {
      name: "Simplify Create",
      additionalFields: { email: "create@example.com", city: "Hamburg" },
      simplify: true,
    });
    expect(Object.keys(created.json[0])).toEqual(SIMPLIFIED.contact);
    const id = created.json[0].id as string;
    expect(await api(suite.sb, "GET", `/contacts/${id}`)).toMatchObject({
      city: "Hamburg",
    });

    const updated = await run("contact", "update", {
      contactId: byId(id),
      updateFields: { company: "Updated Co" },
      simplify: true,
    });
    expect(updated.json).toEqual([
      simplified(
        await api(suite.sb, "GET", `/contacts/${id}`),
        SIMPLIFIED.contact,
      ),
    ]);

    const secondary = await newContact();
    const merged = await run("contact", "merge", {
      primaryContactId: byId(id),
      secondaryContactId: byId(secondary.id),
      simplify: true,
    });
    expect(merged.json).toEqual([
      simplified(
        await api(suite.sb, "GET", `/contacts/${id}`),
        SIMPLIFIED.contact,
      ),
    ]);
    expect(merged.json[0].phone).toBe(secondary.phone);
  });
});

test("Conversation Get Many: raw by default, simplified when on", async () => {
  const expected = (
    (await api(suite.sb, "GET", "/conversations?per_page=5")).data as Json[]
  ).slice(0, 5);
  const raw = await run("conversation", "getAll", {
    returnAll: false,
    limit: 5,
  });
  expect(raw.json).toEqual(expected);

  const simple = await run("conversation", "getAll", {
    returnAll: false,
    limit: 5,
    simplify: true,
  });
  expect(simple.json).toEqual(
    expected.map((conversation) =>
      simplified(conversation, SIMPLIFIED.conversation),
    ),
  );
  expect(Object.keys(simple.json[0])).toEqual(SIMPLIFIED.conversation);
});

describe("Message", () => {
  test("Get Many: raw by default, simplified when on", async () => {
    const conversation = await newConversation(suite.sb);
    for (const text of ["first", "second", "third"]) {
      await control(suite.sb, "POST", "/inbound", {
        conversation_id: conversation.id,
        text,
      });
    }
    const filters = { conversationId: byId(conversation.id) };
    const raw = await run("message", "getAll", { returnAll: true, filters });
    expect(raw.json).toHaveLength(3);
    expect(
      raw.json.every(
        (message) =>
          "message_session_id" in message && "client_request_id" in message,
      ),
    ).toBe(true);

    const simple = await run("message", "getAll", {
      returnAll: true,
      filters,
      simplify: true,
    });
    expect(simple.json).toEqual(
      raw.json.map((message) => simplified(message, SIMPLIFIED.message)),
    );
    expect(simple.json.map((message) => message.content)).toEqual([
      "third",
      "second",
      "first",
    ]);
  });

  test("sends output the full Message by default, the simplified one when on, and send once either way", async () => {
    const conversation = await newConversation(suite.sb);
    const raw = await run("message", "sendText", {
      conversationId: byId(conversation.id),
      text: "raw",
    });
    expect(raw.json[0]).toMatchObject({
      content: "raw",
      app_id: suite.sb.app_id,
    });
    expect(raw.json[0].client_request_id).toEqual(expect.any(String));

    const simple = await run("message", "sendLocation", {
      conversationId: byId(conversation.id),
      latitude: 52.52,
      longitude: 13.405,
      simplify: true,
    });
    expect(Object.keys(simple.json[0])).toEqual(SIMPLIFIED.message);
    expect(simple.json[0]).toMatchObject({
      conversation_id: conversation.id,
      message_type: "location",
    });
    const stored = (
      await api(
        suite.sb,
        "GET",
        `/messages?conversation_id=${conversation.id}&per_page=10`,
      )
    ).data as Json[];
    expect(stored.map((message) => message.content).sort()).toEqual([
      "52.52,13.405",
      "raw",
    ]);
  });
});

describe("the Simplify parameter", () => {
  // Each operation has two: one for workflows, one for the node used as an AI tool (n8n's `@tool` condition).
  const asTool = (property: {
    displayOptions?: { show?: Record<string, unknown> };
  }) => JSON.stringify(property.displayOptions?.show?.["@tool"]) === "[true]";
  const allSimplify = nodeType.description.properties.filter(
    (property) => property.name === "simplify",
  );
  const simplifyParameters = allSimplify.filter(
    (property) => !asTool(property),
  );
  const toolSimplify = allSimplify.filter(asTool);
  const operationsWithSimplify = simplifyParameters.flatMap((property) =>
    (property.displayOptions?.show?.operation ?? []).map(
      (operation) =>
        `${String(property.displayOptions?.show?.resource)}.${String(operation)}`,
    ),
  );

  test("is on every operation that outputs a contact, conversation or message, and only there", () => {
    expect(operationsWithSimplify.sort()).toEqual(
      [
        "contact.create",
        "contact.createOrUpdate",
        "contact.get",
        "contact.getAll",
        "contact.merge",
        "contact.update",
        "conversation.getAll",
        "message.getAll",
        "message.sendAndWait",
        "message.sendAudio",
        "message.sendDocument",
        "message.sendImage",
        "message.sendLocation",
        "message.sendText",
        "message.sendVideo",
      ].sort(),
    );
  });

  test("follows n8n's guideline, defaults to off and documents its fields", () => {
    for (const property of simplifyParameters) {
      const resource = String(
        property.displayOptions?.show?.resource,
      ) as keyof typeof SIMPLIFIED;
      expect(property).toMatchObject({
        displayName: "Simplify",
        type: "boolean",
        default: false,
      });
      // Send and Wait adds a sentence saying the Simplify applies to the reply in the chat.
      expect(
        property.description?.startsWith(
          `Whether to return a simplified version of the response instead of the raw data. The simplified ${resource} has only ${SIMPLIFIED[resource].join(", ")}.`,
        ),
      ).toBe(true);
      expect(SIMPLIFIED[resource].length).toBeLessThanOrEqual(10);
    }
  });

  test("as an AI tool it is on by default, with the same fields, on the same operations", () => {
    const where = (property: (typeof allSimplify)[number]) =>
      `${String(property.displayOptions?.show?.resource)}.${String(property.displayOptions?.show?.operation)}`;
    expect(toolSimplify.map(where).sort()).toEqual(
      simplifyParameters.map(where).sort(),
    );
    for (const property of simplifyParameters) {
      expect(property.displayOptions?.show?.["@tool"]).toEqual([false]);
      const twin = toolSimplify.find((tool) => where(tool) === where(property));
      expect(twin).toMatchObject({
        displayName: "Simplify",
        type: "boolean",
        default: true,
        description: property.description,
      });
    }
  });
});
