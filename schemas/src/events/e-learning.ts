import { opt, req, t, type EventDef } from '../dsl/types';

/** E-learning block events (spec 6, E-learning). */
const questionEvent: EventDef = {
  event: 'question',
  block: 'e_learning',
  name: 'QuestionProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('question_action', ['answer', 'skip'], { extensions: ['other'] })),
    // Kenkai and causalfoundry/ios-sdk send no answer_id for skip (encodeIfPresent of nil).
    answer_id: req(t.string, { clientOmits: 'the Kenkai iOS client leaves it out when there is no answer (skip)', client: { mayOmit: true } }),
    exam_id: req(t.string),
  },
};

const examEvent: EventDef = {
  event: 'exam',
  block: 'e_learning',
  name: 'ExamProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('exam_action', ['start', 'submit', 'result'], { extensions: ['other'] })),
    // Kenkai's ExamObject has them optional, and causalfoundry/ios-sdk sends each only when it has one:
    // duration with submit, score and is_passed with result.
    is_passed: req(t.boolean, { clientOmits: 'the Kenkai iOS client sends it only for result', client: { mayOmit: true } }),
    score: req(t.float, { clientOmits: 'the Kenkai iOS client sends it only for result', client: { mayOmit: true } }),
    duration: req(t.int, { doc: 'seconds', min: 0, clientOmits: 'the Kenkai iOS client sends it only for submit', client: { mayOmit: true } }),
  },
};

const moduleEvent: EventDef = {
  event: 'module',
  block: 'e_learning',
  name: 'ModuleProps',
  fields: {
    id: req(t.string),
    action: req(t.enum('module_action', ['view'], { extensions: ['other'] })),
    // Percent complete (iOS SDK docs: "the percentage complete for the module"; the data generator
    // sends 100 when a module is finished).
    progress: opt(t.int, { min: 0, max: 100 }),
  },
};

export const eLearningEvents: EventDef[] = [questionEvent, examEvent, moduleEvent];
